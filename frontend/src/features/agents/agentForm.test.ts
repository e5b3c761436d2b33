import { describe, expect, it } from 'vitest';
import type { Agent } from '../../lib/api/agentTypes';
import { formFromAgent, modelAfterProviderChange, newForm, parseBudget, tasksFromWire, tasksToWire, toInput } from './agentForm';
import { connectedProviders, defaultModel, fixVerb, initialProvider, notReadyWords, PROVIDERS, runtimeName } from './providers';
import type { RuntimeEntry } from '../../lib/api/types';

const nativeAgent: Agent = {
  id: 'rev-abc123',
  name: 'Reviewer',
  runtime: 'clawboo-native',
  provider: 'openai',
  model: 'gpt-4o',
  config: {
    systemPrompt: 'Review carefully.',
    primaryProvider: 'openai',
    primaryModel: 'gpt-4o',
    fallbacks: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }],
    envVar: 'OPENAI_API_KEY',
    tools: { memory: false, tools: true, tasks: true, teamchat: false, shell: true },
    participantKind: 'agent',
    maxTurns: 30,
    budgetUsd: 2.5,
  },
  budgetUsd: 2.5,
  providerReady: false,
  hostId: null,
  warnings: [],
  createdAt: 1,
  updatedAt: 2,
};

describe('providers', () => {
  it('lists the eleven with the reference defaults', () => {
    expect(PROVIDERS.map((p) => p.id)).toEqual([
      'anthropic', 'openai', 'openrouter', 'ollama', 'google', 'xai', 'groq', 'mistral', 'together', 'cerebras', 'moonshot',
    ]);
    expect(defaultModel('anthropic')).toBe('claude-haiku-4-5');
    expect(defaultModel('openai')).toBe('gpt-4o-mini');
    expect(defaultModel('openrouter')).toBe('openai/gpt-4o-mini');
    expect(defaultModel('ollama')).toBe('llama3.2');
    expect(defaultModel('google')).toBe('gemini-2.0-flash');
    expect(defaultModel('nope')).toBe('');
  });

  it('says what a not-ready agent lacks', () => {
    expect(notReadyWords({ runtime: 'clawboo-native', provider: 'anthropic' })).toBe("Anthropic key isn't connected");
    expect(notReadyWords({ runtime: 'clawboo-native', provider: 'ollama' })).toBe("Ollama (local) isn't set up");
    expect(notReadyWords({ runtime: 'clawboo-native', provider: 'acme' })).toBe("provider 'acme' is unknown");
    // Names, never ids; Codex says how it signs in.
    expect(notReadyWords({ runtime: 'codex', provider: '' })).toBe("Codex isn't signed in (run codex login)");
    const listed = [
      { id: 'claude-code', name: 'Claude Code', connectionState: 'needs-auth' },
      { id: 'acp-gemini', name: 'Gemini CLI', connectionState: 'not-installed' },
      { id: 'acp-copilot', name: 'GitHub Copilot CLI', connectionState: 'needs-login' },
    ] as unknown as RuntimeEntry[];
    expect(notReadyWords({ runtime: 'claude-code', provider: '' }, listed)).toBe("Claude Code isn't connected");
    expect(notReadyWords({ runtime: 'acp-gemini', provider: '' }, listed)).toBe("Gemini CLI isn't installed");
    expect(notReadyWords({ runtime: 'acp-copilot', provider: '' }, listed)).toBe("GitHub Copilot CLI isn't signed in");
    // Before the catalog is read, or a runtime it does not list: no id shown.
    expect(notReadyWords({ runtime: 'claude-code', provider: '' })).toBe("Its runtime isn't connected");
    expect(notReadyWords({ runtime: 'some-new-runtime', provider: '' }, listed)).toBe("Its runtime isn't connected");
    expect([fixVerb({ runtime: 'acp-gemini' }, listed), fixVerb({ runtime: 'claude-code' }, listed)]).toEqual(['install it', 'connect it']);
    expect([runtimeName('acp-gemini', listed), runtimeName('some-new-runtime', listed)]).toEqual(['Gemini CLI', 'some-new-runtime']);
  });

  it('reads connected keys from the native runtime entry', () => {
    const rt = {
      id: 'clawboo-native',
      keys: [
        { id: 'anthropic', connected: false },
        { id: 'groq', connected: true },
      ],
    } as unknown as RuntimeEntry;
    const other = { id: 'claude-code', keys: [{ id: 'anthropic', connected: true }] } as unknown as RuntimeEntry;
    const c = connectedProviders([other, rt]);
    expect([...c]).toEqual(['groq']);
    expect(initialProvider(c)).toBe('groq');
    expect(initialProvider(new Set())).toBe('anthropic');
    expect(initialProvider(c, 'google')).toBe('google');
    expect(initialProvider(c, 'acme')).toBe('groq');
  });
});

describe('agent form', () => {
  it('starts on the native defaults', () => {
    const f = newForm('openai');
    expect(f.runtime).toBe('clawboo-native');
    expect(f.model).toBe('gpt-4o-mini');
    expect(f.tools).toEqual({ memory: true, tools: true, tasks: 'read', teamchat: true, shell: false });
    expect(f.maxTurns).toBe('16');
    expect(f.budget).toBe('');
    expect(newForm('openai', 'clawboo-mock').model).toBe('');
  });

  it('maps tasks access both ways', () => {
    for (const m of ['off', 'read', 'full'] as const) expect(tasksFromWire(tasksToWire(m))).toBe(m);
    expect(tasksToWire('full')).toBe(true);
    expect(tasksToWire('off')).toBe(false);
    expect(tasksFromWire(undefined)).toBe('off');
  });

  it('round-trips a native agent through the form', () => {
    const f = formFromAgent(nativeAgent);
    expect(f.tools).toEqual({ memory: false, tools: true, tasks: 'full', teamchat: false, shell: true });
    expect(f.budget).toBe('2.5');
    const r = toInput(f, false);
    expect(r.errors).toEqual([]);
    expect(r.input).toEqual({
      name: 'Reviewer',
      config: {
        systemPrompt: 'Review carefully.',
        primaryProvider: 'openai',
        primaryModel: 'gpt-4o',
        fallbacks: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }],
        tools: { memory: false, tools: true, tasks: true, teamchat: false, shell: true },
        maxTurns: 30,
      },
      budgetUsd: 2.5,
    });
  });

  it('creates a native agent with the runtime, default models filled, and no budget as null', () => {
    const f = newForm();
    f.name = '  Helper ';
    f.model = '';
    f.fallbacks = [{ provider: 'ollama', model: '' }];
    const r = toInput(f, true);
    expect(r.errors).toEqual([]);
    expect(r.input?.name).toBe('Helper');
    expect(r.input?.runtime).toBe('clawboo-native');
    expect(r.input?.config?.primaryModel).toBe('claude-haiku-4-5');
    expect(r.input?.config?.fallbacks).toEqual([{ provider: 'ollama', model: 'llama3.2' }]);
    expect(r.input?.config?.tools?.tasks).toBe('read');
    expect(r.input?.budgetUsd).toBeNull();
  });

  it('sends provider and model plainly for other runtimes', () => {
    const f = newForm('anthropic', 'clawboo-mock');
    f.name = 'Mocky';
    expect(toInput(f, true).input).toEqual({ name: 'Mocky', runtime: 'clawboo-mock', budgetUsd: null });
    f.model = 'mock';
    f.budget = '$3';
    expect(toInput(f, false).input).toEqual({ name: 'Mocky', provider: '', model: 'mock', budgetUsd: 3 });
  });

  it('says every problem at once', () => {
    const f = newForm();
    f.provider = '';
    f.model = '';
    f.maxTurns = '101';
    f.budget = '-1';
    f.fallbacks = [1, 2, 3, 4, 5].map(() => ({ provider: 'openai', model: '' }));
    f.fallbacks[0] = { provider: 'Bad Id', model: 'x' };
    const r = toInput(f, true);
    expect(r.input).toBeNull();
    expect(r.errors).toEqual([
      'Give the agent a name.',
      'Budget must be an amount in USD of 0 or more, or empty for none.',
      'Choose a provider.',
      'Name a model.',
      'At most 4 fallbacks.',
      'Fallback 1: choose a provider.',
      'Max turns must be a whole number from 1 to 100.',
    ]);
    f.maxTurns = '2.5';
    expect(toInput(f, true).errors).toContain('Max turns must be a whole number from 1 to 100.');
  });

  it('accepts numbers where an input binding hands them', () => {
    const f = newForm();
    f.name = 'N';
    f.maxTurns = 24 as unknown as string;
    f.budget = 0 as unknown as string;
    expect(toInput(f, true).input).toMatchObject({ config: { maxTurns: 24 }, budgetUsd: 0 });
  });

  it('parses budgets', () => {
    expect(parseBudget('')).toEqual({ value: null });
    expect(parseBudget(' 0 ')).toEqual({ value: 0 });
    expect(parseBudget('$1.25')).toEqual({ value: 1.25 });
    expect(parseBudget('abc')).toHaveProperty('error');
  });

  it('follows the provider default unless the user typed a model', () => {
    expect(modelAfterProviderChange('anthropic', 'claude-haiku-4-5', 'openai')).toBe('gpt-4o-mini');
    expect(modelAfterProviderChange('anthropic', '', 'ollama')).toBe('llama3.2');
    expect(modelAfterProviderChange('anthropic', 'claude-opus-4', 'openai')).toBe('claude-opus-4');
  });
});
