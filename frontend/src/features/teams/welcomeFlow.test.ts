import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../lib/api/client';
import type { OnboardingProvider, OnboardingSpecialist } from '../../lib/api/teamTypes';
import { createDemoTeam, createMyTeam, defaultProvider, readySpecialists, type WelcomeStage } from './welcomeFlow';

type Answer = { status: number; body?: unknown };

/** An ApiClient over a fake fetch: answers by "METHOD path", records each call with its JSON body. */
function fakeApi(answers: Record<string, Answer>) {
  const calls: string[] = [];
  const fetchFn = async (input: string, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    const key = `${method} ${input}`;
    calls.push(init?.body ? `${key} ${String(init.body)}` : key);
    const a = answers[key];
    if (!a) return new Response(JSON.stringify({ error: `no fake for ${key}` }), { status: 404 });
    return new Response(a.body === undefined ? null : JSON.stringify(a.body), { status: a.status });
  };
  return { api: new ApiClient(fetchFn), calls };
}

const anthropic: OnboardingProvider = { id: 'anthropic', name: 'Anthropic', connected: false, defaultModel: 'claude-haiku-4-5', keyless: false };
const ollama: OnboardingProvider = { id: 'ollama', name: 'Ollama (local)', connected: false, defaultModel: 'llama3.2', keyless: true };
const offered: OnboardingSpecialist[] = [
  { runtime: 'claude-code', name: 'Claude Code', ready: true },
  { runtime: 'codex', name: 'Codex', ready: false },
];
const team = { id: 'team-1', name: 'My team', leaderAgentId: 'lead', brief: '', repoPath: null, createdAt: 1, updatedAt: 1, members: [] };
const seeded: Answer = { status: 201, body: { team, suggestedMessage: 'Say hello to the team' } };
const HC = 'POST /api/runtimes/clawboo-native/healthcheck';
const CONNECT = 'POST /api/runtimes/clawboo-native/connect';
const SEED = 'POST /api/onboarding/seed-native-team';
const DEMO = 'POST /api/onboarding/seed-demo-team';
const CHECK = 'POST /api/repos/check';
const missing = { status: 400, body: { error: '/tmp/x does not exist: give the folder of a git repository', reason: 'bad_repository', field: 'repoPath' } };

describe('createMyTeam', () => {
  it('verifies the key, stores it, then seeds the team with the ready specialists ticked', async () => {
    const { api, calls } = fakeApi({
      [CHECK]: { status: 200, body: { ok: true, repoPath: '/home/me/repo' } },
      [HC]: { status: 200, body: { ok: true } },
      [CONNECT]: { status: 200, body: { ok: true, connectionState: 'ready' } },
      [SEED]: seeded,
    });
    const stages: WelcomeStage[] = [];
    const out = await createMyTeam(
      api,
      { provider: anthropic, apiKey: ' sk-ant-1 ', repoPath: ' /home/me/repo ', specialists: ['claude-code', 'codex'], offered },
      (s) => stages.push(s),
    );
    expect(out).toMatchObject({ ok: true, suggestedMessage: 'Say hello to the team', team: { id: 'team-1' } });
    expect(calls).toEqual([
      `${CHECK} {"repoPath":"/home/me/repo"}`,
      `${HC} {"provider":"anthropic","apiKey":"sk-ant-1"}`,
      `${CONNECT} {"apiKey":"sk-ant-1","provider":"anthropic"}`,
      `${SEED} {"provider":"anthropic","specialists":["claude-code"],"repoPath":"/home/me/repo"}`,
    ]);
    expect(stages).toEqual(['repo', 'verify', 'connect', 'seed']);
  });

  it('refuses a repository that is not one before the key is checked or stored, at the repository field', async () => {
    const { api, calls } = fakeApi({ [CHECK]: missing });
    const out = await createMyTeam(api, { provider: anthropic, apiKey: 'sk-ant-1', repoPath: '/tmp/x', specialists: [], offered });
    expect(out).toEqual({ ok: false, stage: 'input', field: 'repoPath', error: '/tmp/x does not exist: give the folder of a git repository' });
    expect(calls).toEqual([`${CHECK} {"repoPath":"/tmp/x"}`]);
  });

  it('says a refusal of the seed that is about the repository at its field, and other refusals as they are', async () => {
    const { api } = fakeApi({ [CHECK]: { status: 200, body: { ok: true } }, [SEED]: missing });
    const out = await createMyTeam(api, { provider: { ...anthropic, connected: true }, apiKey: '', repoPath: '/tmp/x', specialists: [], offered });
    expect(out).toMatchObject({ ok: false, stage: 'seed', field: 'repoPath' });
  });

  it('lets the Coder ask to run commands only when ticked', async () => {
    const on = fakeApi({ [SEED]: seeded });
    await createMyTeam(on.api, { provider: { ...anthropic, connected: true }, apiKey: '', specialists: [], offered, coderShell: true });
    expect(on.calls).toEqual([`${SEED} {"provider":"anthropic","specialists":[],"coderShell":true}`]);
    const off = fakeApi({ [SEED]: seeded });
    await createMyTeam(off.api, { provider: { ...anthropic, connected: true }, apiKey: '', specialists: [], offered, coderShell: false });
    expect(off.calls).toEqual([`${SEED} {"provider":"anthropic","specialists":[]}`]);
  });

  it('stops at a refused key with the provider’s words, storing nothing and seeding nothing', async () => {
    const { api, calls } = fakeApi({ [HC]: { status: 200, body: { ok: false, error: 'Invalid API key.' } } });
    const out = await createMyTeam(api, { provider: anthropic, apiKey: 'bad', specialists: [], offered });
    expect(out).toEqual({ ok: false, stage: 'verify', error: 'Invalid API key.' });
    expect(calls).toHaveLength(1);
  });

  it('asks for a key before calling anything', async () => {
    const { api, calls } = fakeApi({});
    expect(await createMyTeam(api, { provider: anthropic, apiKey: '  ', specialists: [], offered })).toEqual({
      ok: false,
      stage: 'input',
      error: 'Paste your Anthropic API key first.',
    });
    expect(calls).toEqual([]);
  });

  it('keeps a connected provider’s stored key when none is pasted', async () => {
    const { api, calls } = fakeApi({ [SEED]: seeded });
    const out = await createMyTeam(api, { provider: { ...anthropic, connected: true }, apiKey: '', model: 'claude-sonnet-4-5', specialists: [], offered });
    expect(out.ok).toBe(true);
    expect(calls).toEqual([`${SEED} {"provider":"anthropic","specialists":[],"model":"claude-sonnet-4-5"}`]);
  });

  it('connects a local Ollama without a key: checks and saves its address, then seeds', async () => {
    const { api, calls } = fakeApi({
      'GET /api/settings/ollama-base-url': { status: 200, body: { url: null } },
      [HC]: { status: 200, body: { ok: true } },
      'PUT /api/settings/ollama-base-url': { status: 200, body: { connectionState: 'ready' } },
      [CONNECT]: { status: 200, body: { ok: true, connectionState: 'ready' } },
      [SEED]: seeded,
    });
    const out = await createMyTeam(api, { provider: ollama, apiKey: 'ignored', specialists: [], offered });
    expect(out.ok).toBe(true);
    expect(calls).toEqual([
      'GET /api/settings/ollama-base-url',
      `${HC} {"provider":"ollama","baseUrl":"http://localhost:11434"}`,
      'PUT /api/settings/ollama-base-url {"url":"http://localhost:11434"}',
      `${CONNECT} {"provider":"ollama"}`,
      `${SEED} {"provider":"ollama","specialists":[]}`,
    ]);
  });

  it('stops when Ollama does not answer', async () => {
    const { api, calls } = fakeApi({
      'GET /api/settings/ollama-base-url': { status: 200, body: { url: null } },
      [HC]: { status: 200, body: { ok: false, error: 'connection refused' } },
    });
    const out = await createMyTeam(api, { provider: ollama, apiKey: '', specialists: [], offered });
    expect(out).toMatchObject({ ok: false, stage: 'verify' });
    expect(!out.ok && out.error).toMatch(/Ollama does not answer at http:\/\/localhost:11434: connection refused/);
    expect(calls.some((c) => c.startsWith(SEED))).toBe(false);
  });

  it('passes a store or seed refusal through in the backend’s words', async () => {
    const stored = fakeApi({ [HC]: { status: 200, body: { ok: true } }, [CONNECT]: { status: 500, body: { error: 'vault is locked' } } });
    expect(await createMyTeam(stored.api, { provider: anthropic, apiKey: 'k', specialists: [], offered })).toEqual({
      ok: false,
      stage: 'connect',
      error: 'vault is locked',
    });
    expect(stored.calls.some((c) => c.startsWith(SEED))).toBe(false);
    const seed = fakeApi({
      [HC]: { status: 200, body: { ok: true } },
      [CONNECT]: { status: 200, body: { ok: true, connectionState: 'ready' } },
      [SEED]: { status: 409, body: { error: 'a team named My team exists' } },
    });
    expect(await createMyTeam(seed.api, { provider: anthropic, apiKey: 'k', specialists: [], offered })).toEqual({
      ok: false,
      stage: 'seed',
      error: 'a team named My team exists',
    });
  });
});

describe('createDemoTeam', () => {
  it('seeds the demo team with no key, after checking the repository', async () => {
    const { api, calls } = fakeApi({ [CHECK]: { status: 200, body: { ok: true } }, [DEMO]: seeded });
    const out = await createDemoTeam(api, ' /home/me/repo ');
    expect(out).toMatchObject({ ok: true, team: { id: 'team-1' } });
    expect(calls).toEqual([`${CHECK} {"repoPath":"/home/me/repo"}`, `${DEMO} {"repoPath":"/home/me/repo"}`]);
  });

  it('creates nothing for a repository that is not one', async () => {
    const { api, calls } = fakeApi({ [CHECK]: missing });
    expect(await createDemoTeam(api, '/tmp/x')).toMatchObject({ ok: false, field: 'repoPath' });
    expect(calls.some((c) => c.startsWith(DEMO))).toBe(false);
  });

  it('needs no repository', async () => {
    const { api, calls } = fakeApi({ [DEMO]: seeded });
    expect((await createDemoTeam(api, '')).ok).toBe(true);
    expect(calls).toEqual([`${DEMO} {}`]);
  });
});

describe('welcome choices', () => {
  it('offers only ready specialists', () => {
    expect(readySpecialists(offered, ['codex', 'claude-code'])).toEqual(['claude-code']);
    expect(readySpecialists(offered, [])).toEqual([]);
  });

  it('starts on a connected provider, else Anthropic, else the first', () => {
    expect(defaultProvider([ollama, anthropic])?.id).toBe('anthropic');
    expect(defaultProvider([anthropic, { ...ollama, connected: true }])?.id).toBe('ollama');
    expect(defaultProvider([ollama])?.id).toBe('ollama');
    expect(defaultProvider([])).toBeNull();
  });
});
