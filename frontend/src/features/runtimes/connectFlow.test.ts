import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import type { ConnectRequest, ConnectResult, HealthCheckResult } from '../../lib/api/types';
import { makeKey } from '../../lib/testing/fixtures';
import { connectKey, type ConnectClient, type ConnectStage } from './connectFlow';

/** A fake client recording its calls; each answer is a value or an error to throw. */
function client(hc: HealthCheckResult | Error, conn: ConnectResult | Error = { ok: true, connectionState: 'ready' }) {
  const calls: string[] = [];
  const c: ConnectClient = {
    async healthcheck(provider: string, apiKey?: string) {
      calls.push(`healthcheck ${JSON.stringify({ provider, apiKey })}`);
      if (hc instanceof Error) throw hc;
      return hc;
    },
    async connect(id: string, req: ConnectRequest) {
      calls.push(`connect ${id} ${JSON.stringify(req)}`);
      if (conn instanceof Error) throw conn;
      return conn;
    },
  };
  return { c, calls };
}

const openrouter = makeKey('openrouter', { name: 'OpenRouter', envVar: 'OPENROUTER_API_KEY' });
const ollama = makeKey('ollama', { name: 'Ollama (local)', envVar: null, keyless: true });
const native = { runtimeId: 'clawboo-native', envVar: 'ANTHROPIC_API_KEY', verify: true };

describe('connectKey', () => {
  it('checks the key with the provider first, then stores it', async () => {
    const { c, calls } = client({ ok: true });
    const stages: ConnectStage[] = [];
    const out = await connectKey(c, { ...native, provider: openrouter, apiKey: '  sk-good \n' }, (s) => stages.push(s));
    expect(out).toEqual({ ok: true, state: 'ready' });
    expect(calls).toEqual([
      'healthcheck {"provider":"openrouter","apiKey":"sk-good"}',
      'connect clawboo-native {"apiKey":"sk-good","provider":"openrouter"}',
    ]);
    expect(stages).toEqual(['verify', 'connect']);
  });

  it('stores nothing when the provider refuses the key, and says why', async () => {
    const { c, calls } = client({ ok: false, error: 'Invalid API key.' });
    const out = await connectKey(c, { ...native, provider: openrouter, apiKey: 'bad' });
    expect(out).toEqual({ ok: false, stage: 'verify', error: 'Invalid API key.' });
    expect(calls).toEqual(['healthcheck {"provider":"openrouter","apiKey":"bad"}']);
  });

  it('stores nothing when the check itself fails', async () => {
    const { c, calls } = client(new ApiError(0, 'cannot reach the Clawboo backend'));
    const out = await connectKey(c, { ...native, provider: openrouter, apiKey: 'k' });
    expect(out).toEqual({ ok: false, stage: 'verify', error: 'cannot reach the Clawboo backend' });
    expect(calls).toHaveLength(1);
  });

  it('checks Ollama without a key and connects it without one', async () => {
    const { c, calls } = client({ ok: true });
    expect(await connectKey(c, { ...native, provider: ollama, apiKey: 'ignored' })).toEqual({ ok: true, state: 'ready' });
    expect(calls).toEqual(['healthcheck {"provider":"ollama"}', 'connect clawboo-native {"provider":"ollama"}']);
  });

  it('asks for a key before calling anything', async () => {
    const { c, calls } = client({ ok: true });
    expect(await connectKey(c, { ...native, provider: openrouter, apiKey: '   ' })).toEqual({
      ok: false,
      stage: 'input',
      error: 'Paste your OPENROUTER_API_KEY first.',
    });
    expect(calls).toEqual([]);
  });

  it('connects without a check where the runtime does not verify keys', async () => {
    const { c, calls } = client({ ok: false, error: 'never asked' });
    const anthropic = makeKey('anthropic', { envVar: 'ANTHROPIC_API_KEY' });
    const out = await connectKey(c, {
      runtimeId: 'claude-code',
      envVar: 'ANTHROPIC_API_KEY',
      verify: false,
      provider: anthropic,
      apiKey: 'k',
    });
    expect(out).toEqual({ ok: true, state: 'ready' });
    expect(calls).toEqual(['connect claude-code {"apiKey":"k","provider":"anthropic"}']);
  });

  it('passes the backend’s refusal through', async () => {
    const { c } = client({ ok: true }, new ApiError(400, "runtime 'hermes' does not use Moonshot keys"));
    expect(await connectKey(c, { ...native, provider: openrouter, apiKey: 'k' })).toEqual({
      ok: false,
      stage: 'connect',
      error: "runtime 'hermes' does not use Moonshot keys",
    });
  });

  it('hands on the login command Codex answers with', async () => {
    const { c } = client({ ok: true }, { ok: true, connectionState: 'needs-login', loginCommand: 'codex login' });
    expect(await connectKey(c, { runtimeId: 'codex', envVar: null, verify: false, provider: null, apiKey: 'x' })).toEqual({
      ok: true,
      state: 'needs-login',
      loginCommand: 'codex login',
    });
  });

  it('hands on the warning when an environment key is used before the stored one', async () => {
    const warning = "ANTHROPIC_API_KEY is also set in Clawboo's environment, and that value is used before the stored key.";
    const { c } = client({ ok: true }, { ok: true, connectionState: 'ready', warning });
    expect(
      await connectKey(c, { runtimeId: 'claude-code', envVar: 'ANTHROPIC_API_KEY', verify: false, provider: null, apiKey: 'k' }),
    ).toEqual({ ok: true, state: 'ready', warning });
  });
});
