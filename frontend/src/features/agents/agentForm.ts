// The Create/Edit agent form as plain data, and its translation to and from
// the API's JSON (agents.Input, agents.Config). Checks here mirror the
// backend's (backend/agents/config.go, mutate.go) so most mistakes are
// said before a request; the backend's 400 words are shown for the rest.

import type { Agent, AgentInput, Fallback, NativeConfig, TaskAccess } from '../../lib/api/agentTypes';
import { NATIVE_RUNTIME_ID } from '../runtimes/catalog';
import { defaultModel, DEFAULT_PROVIDER } from './providers';

export const MAX_FALLBACKS = 4;
export const DEFAULT_MAX_TURNS = 16;
export const MAX_MAX_TURNS = 100;
const MAX_NAME = 100;
const MAX_BUDGET = 1e9;
const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export type TasksMode = 'off' | 'read' | 'full';

export interface ToolSwitches {
  memory: boolean;
  tools: boolean;
  tasks: TasksMode;
  teamchat: boolean;
  shell: boolean;
}

export interface AgentForm {
  name: string;
  runtime: string;
  /** Native: the primary provider; others: an optional provider id. */
  provider: string;
  model: string;
  fallbacks: Fallback[];
  systemPrompt: string;
  tools: ToolSwitches;
  /** As typed; checked by toInput. */
  maxTurns: string;
  /** As typed; "" means no budget. */
  budget: string;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful, careful teammate working inside Clawboo. Be concise and say what you did.';

export function tasksToWire(m: TasksMode): TaskAccess {
  return m === 'full' ? true : m === 'read' ? 'read' : false;
}

export function tasksFromWire(t: TaskAccess | undefined): TasksMode {
  return t === true ? 'full' : t === 'read' ? 'read' : 'off';
}

/** A new agent's form: the native runtime's defaults (seed 004). */
export function newForm(provider = DEFAULT_PROVIDER, runtime = NATIVE_RUNTIME_ID): AgentForm {
  return {
    name: '',
    runtime,
    provider: runtime === NATIVE_RUNTIME_ID ? provider : '',
    model: runtime === NATIVE_RUNTIME_ID ? defaultModel(provider) : '',
    fallbacks: [],
    systemPrompt: DEFAULT_SYSTEM_PROMPT,
    tools: { memory: true, tools: true, tasks: 'read', teamchat: true, shell: false },
    maxTurns: String(DEFAULT_MAX_TURNS),
    budget: '',
  };
}

/** The form for editing an agent as the API returned it. */
export function formFromAgent(a: Agent): AgentForm {
  const f = newForm(a.provider || DEFAULT_PROVIDER, a.runtime);
  f.name = a.name;
  f.provider = a.provider;
  f.model = a.model;
  f.budget = a.budgetUsd === null ? '' : String(a.budgetUsd);
  const c = a.config;
  if (c) {
    f.provider = c.primaryProvider;
    f.model = c.primaryModel;
    f.fallbacks = (c.fallbacks ?? []).map((x) => ({ ...x }));
    f.systemPrompt = c.systemPrompt;
    f.tools = {
      memory: c.tools.memory,
      tools: c.tools.tools,
      tasks: tasksFromWire(c.tools.tasks),
      teamchat: c.tools.teamchat,
      shell: c.tools.shell === true,
    };
    f.maxTurns = String(c.maxTurns);
  }
  return f;
}

/**
 * The model after a provider change: the new provider's default when the
 * model was empty or the old provider's default (not a model the user typed).
 */
export function modelAfterProviderChange(oldProvider: string, model: string, newProvider: string): string {
  const m = model.trim();
  return m === '' || m === defaultModel(oldProvider) ? defaultModel(newProvider) : model;
}

/** Parses the budget field: null for empty, a number, or an error's words. */
export function parseBudget(s: string): { value: number | null } | { error: string } {
  const t = String(s).trim().replace(/^\$/, '');
  if (t === '') return { value: null };
  const n = Number(t);
  if (!Number.isFinite(n) || n < 0 || n > MAX_BUDGET) return { error: 'Budget must be an amount in USD of 0 or more, or empty for none.' };
  return { value: n };
}

export type ToInput = { input: AgentInput; errors: [] } | { input: null; errors: string[] };

/** Checks the form and builds the request body; `creating` adds the runtime (it cannot change later). */
export function toInput(f: AgentForm, creating: boolean): ToInput {
  const errors: string[] = [];
  const name = f.name.trim();
  if (name === '') errors.push('Give the agent a name.');
  else if ([...name].length > MAX_NAME) errors.push(`The name is over ${MAX_NAME} characters.`);
  if (creating && f.runtime === '') errors.push('Choose a runtime.');
  const budget = parseBudget(f.budget);
  if ('error' in budget) errors.push(budget.error);
  const native = f.runtime === NATIVE_RUNTIME_ID;
  const provider = f.provider.trim();
  const model = f.model.trim();
  let config: Partial<NativeConfig> | undefined;
  if (native) {
    if (!PROVIDER_ID.test(provider)) errors.push('Choose a provider.');
    const primaryModel = model || defaultModel(provider);
    if (primaryModel === '') errors.push('Name a model.');
    if (f.fallbacks.length > MAX_FALLBACKS) errors.push(`At most ${MAX_FALLBACKS} fallbacks.`);
    const fallbacks = f.fallbacks.map((x, i) => {
      const p = x.provider.trim();
      const m = x.model.trim() || defaultModel(p);
      if (!PROVIDER_ID.test(p)) errors.push(`Fallback ${i + 1}: choose a provider.`);
      else if (m === '') errors.push(`Fallback ${i + 1}: name a model.`);
      return { provider: p, model: m };
    });
    const turns = Number(String(f.maxTurns).trim()); // a number input's binding may hand a number
    if (!Number.isInteger(turns) || turns < 1 || turns > MAX_MAX_TURNS) errors.push(`Max turns must be a whole number from 1 to ${MAX_MAX_TURNS}.`);
    config = {
      systemPrompt: f.systemPrompt,
      primaryProvider: provider,
      primaryModel,
      fallbacks,
      tools: {
        memory: f.tools.memory,
        tools: f.tools.tools,
        tasks: tasksToWire(f.tools.tasks),
        teamchat: f.tools.teamchat,
        shell: f.tools.shell,
      },
      maxTurns: turns,
    };
  } else if (provider !== '' && !PROVIDER_ID.test(provider)) {
    errors.push('The provider must be an id: lowercase letters, digits, ".", "_" or "-".');
  }
  if (errors.length > 0 || 'error' in budget) return { input: null, errors };
  const input: AgentInput = { name };
  if (creating) input.runtime = f.runtime;
  if (config) input.config = config;
  else if (creating) {
    if (provider) input.provider = provider;
    if (model) input.model = model;
  } else {
    input.provider = provider;
    input.model = model;
  }
  input.budgetUsd = budget.value;
  return { input, errors: [] };
}
