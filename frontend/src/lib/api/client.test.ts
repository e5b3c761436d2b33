import { describe, expect, it } from 'vitest';
import { ApiClient, ApiError, describeError } from './client';
import { DecodeError, parseInstallEvent, parseRunEvent } from './decode';
import { makeRun, makeRuntime } from '../testing/fixtures';
import type { InstallEvent } from './types';
import { onSessionEnded } from './session';

interface Seen {
  url: string;
  method: string;
  body: unknown;
  contentType: string | null;
}

/** A fetch answering every request with one canned response, recording what was asked. */
function fake(status: number, body: unknown, raw = false) {
  const seen: Seen[] = [];
  const client = new ApiClient(async (url, init) => {
    seen.push({
      url,
      method: init?.method ?? 'GET',
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      contentType: new Headers(init?.headers).get('Content-Type'),
    });
    return new Response(raw ? String(body) : JSON.stringify(body), { status });
  });
  return { client, seen };
}

const RUN = makeRun({ id: '01ABC' });

describe('ApiClient', () => {
  it('a 401 (the token rotated, the session gone) ends the session once, so the page shows the way back in', async () => {
    let ended = 0;
    onSessionEnded(() => ended++);
    const { client } = fake(401, { error: 'unauthorized: this API needs its token', code: '' });
    await expect(client.runtimes()).rejects.toMatchObject({ status: 401 });
    await expect(client.runtimes()).rejects.toMatchObject({ status: 401 });
    expect(ended).toBe(1);
    const other = fake(404, { error: 'no such run' });
    onSessionEnded(() => ended++);
    await expect(other.client.runtimes()).rejects.toMatchObject({ status: 404 });
    expect(ended).toBe(1);
  });

  it('starts a run without waiting, at a relative, escaped URL', async () => {
    const { client, seen } = fake(202, { runId: 'r1' });
    expect(await client.startRun('a b', { message: 'hi', context: 'c' })).toEqual({ runId: 'r1' });
    expect(seen).toEqual([
      { url: '/api/runtimes/a%20b/run', method: 'POST', body: { message: 'hi', context: 'c', wait: false }, contentType: 'application/json' },
    ]);
  });

  it('passes the backend’s error text through', async () => {
    const { client } = fake(404, { error: "unknown runtime 'nope'" });
    const err = await client.startRun('nope', { message: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).message).toBe("unknown runtime 'nope'");
  });

  it('says "Disk full" when the backend answers 507', async () => {
    const error = 'the disk is full: the run ended but its result could not be saved';
    const { client } = fake(507, { ok: false, runId: 'r1', reason: 'disk_full', error });
    const err = await client.startRun('clawboo-mock', { message: 'x' }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(507);
    expect((err as ApiError).reason).toBe('disk_full');
    expect(describeError(err)).toBe('Disk full: the run ended but its result could not be saved');
    expect(describeError(new ApiError(507, 'no room for the setting'))).toBe('Disk full: no room for the setting');
    expect(describeError(new ApiError(409, 'run already finished'))).toBe('run already finished');
  });

  it('reads the storage sizes and refuses a malformed answer', async () => {
    const retention = { compactAfterHours: 24, compactOverBytes: 1 };
    const body = { databaseBytes: 10, walBytes: 0, freeBytes: 0, worktreeBytes: 5, retention };
    const { client, seen } = fake(200, body);
    expect(await client.storage()).toEqual(body);
    expect(seen[0]).toMatchObject({ url: '/api/storage', method: 'GET' });
    await expect(fake(200, { databaseBytes: 1 }).client.storage()).rejects.toThrow(DecodeError);
  });

  it('describes a non-JSON error by its status', async () => {
    const { client } = fake(502, '<html>bad gateway</html>', true);
    await expect(client.health()).rejects.toThrow('the backend answered 502');
  });

  it('reports an unreachable backend in words', async () => {
    const client = new ApiClient(async () => {
      throw new TypeError('Failed to fetch');
    });
    const err = await client.health().catch((e: unknown) => e);
    expect(err).toEqual(new ApiError(0, 'cannot reach the Clawboo backend'));
    expect(describeError(err)).toBe('cannot reach the Clawboo backend');
  });

  it('builds list queries and decodes pages', async () => {
    const { client, seen } = fake(200, { runs: [RUN], nextCursor: '01ABC' });
    const page = await client.listRuns({ limit: 50, before: 'X Y' });
    expect(seen[0]?.url).toBe('/api/runs?limit=50&before=X+Y');
    expect(page.runs[0]?.id).toBe('01ABC');
    expect(page.nextCursor).toBe('01ABC');
    await client.listRuns();
    expect(seen[1]?.url).toBe('/api/runs');
  });

  it('refuses answers of the wrong shape with a clear error', async () => {
    await expect(fake(200, { runs: [{ ...RUN, status: 'weird' }], nextCursor: null }).client.listRuns()).rejects.toThrow(
      DecodeError,
    );
    await expect(fake(200, { runtimes: [] }).client.runtimes()).rejects.toThrow(/runtimes is not/);
    await expect(fake(202, {}).client.startRun('m', { message: 'x' })).rejects.toThrow(/no runId/);
  });

  it('aborts by POST and maps 409', async () => {
    const { client, seen } = fake(409, { error: "run 'r' already finished" });
    await expect(client.abortRun('r')).rejects.toMatchObject({ status: 409 });
    expect(seen[0]).toMatchObject({ url: '/api/runs/r/abort', method: 'POST' });
  });
});

describe('ApiClient runtimes', () => {
  const vault = { backend: 'file', detail: '', probing: false };

  it('reads the runtimes list with where keys are kept', async () => {
    const { client } = fake(200, { runtimes: [makeRuntime()], available: [], vault });
    const res = await client.runtimes();
    expect(res.runtimes[0]?.connectionState).toBe('not-installed');
    expect(res.vault).toEqual(vault);
    await expect(fake(200, { runtimes: [], available: [] }).client.runtimes()).rejects.toThrow(/vault/);
    await expect(
      fake(200, { runtimes: [makeRuntime({ connectionState: 'weird' as never })], available: [], vault }).client.runtimes(),
    ).rejects.toThrow(/unknown connection state/);
  });

  it('connects, disconnects and re-checks at escaped URLs, and never sends what it was not given', async () => {
    const { client, seen } = fake(200, { ok: true, connectionState: 'ready' });
    expect(await client.connect('claude-code', { apiKey: 'k' })).toEqual({ ok: true, connectionState: 'ready' });
    await client.connect('clawboo-native', { provider: 'ollama' });
    await client.disconnect('a/b');
    expect(seen.map((s) => [s.url, s.body])).toEqual([
      ['/api/runtimes/claude-code/connect', { apiKey: 'k' }],
      ['/api/runtimes/clawboo-native/connect', { provider: 'ollama' }],
      ['/api/runtimes/a%2Fb/disconnect', {}],
    ]);
    const codex = fake(200, { ok: true, connectionState: 'needs-login', loginCommand: 'codex login' });
    expect(await codex.client.connect('codex', {})).toEqual({ ok: true, connectionState: 'needs-login', loginCommand: 'codex login' });
    const rc = fake(200, makeRuntime({ connectionState: 'needs-auth' }));
    expect((await rc.client.recheck('claude-code')).connectionState).toBe('needs-auth');
    expect(rc.seen[0]).toMatchObject({ url: '/api/runtimes/claude-code/recheck', method: 'POST' });
  });

  it('health-checks a key on the native runtime; a refusal carries its words', async () => {
    const { client, seen } = fake(200, { ok: false, error: 'Invalid API key.' });
    expect(await client.healthcheck('openrouter', 'bad')).toEqual({ ok: false, error: 'Invalid API key.' });
    await client.healthcheck('ollama');
    expect(seen.map((s) => [s.url, s.body])).toEqual([
      ['/api/runtimes/clawboo-native/healthcheck', { provider: 'openrouter', apiKey: 'bad' }],
      ['/api/runtimes/clawboo-native/healthcheck', { provider: 'ollama' }],
    ]);
    await expect(fake(400, { ok: false, error: "unknown provider 'x'" }).client.healthcheck('x', 'k')).rejects.toThrow(
      "unknown provider 'x'",
    );
  });

  it('streams an install’s events and rejects a refusal with the backend’s words', async () => {
    const body =
      'retry: 1000\n\n' +
      'data: {"type":"progress","step":"installing","message":"Installing…"}\n\n' +
      'data: {"type":"output","stream":"stdout"}\n\n' +
      'data: {"type":"surprise"}\n\n' +
      'data: {"type":"complete","success":true}\n\n';
    const seen: string[] = [];
    const client = new ApiClient(async (url, init) => {
      seen.push(`${init?.method} ${url}`);
      return new Response(body, { status: 200 });
    });
    const events: InstallEvent[] = [];
    await client.install('claude-code', (e) => events.push(e));
    expect(seen).toEqual(['POST /api/runtimes/claude-code/install']);
    expect(events).toEqual([
      { type: 'progress', step: 'installing', message: 'Installing…' },
      { type: 'output', line: '', stream: 'stdout' },
      { type: 'complete', success: true },
    ]);
    const busy = fake(409, { error: 'an install of claude-code is already running' });
    await expect(busy.client.install('claude-code', () => {})).rejects.toMatchObject({
      status: 409,
      message: 'an install of claude-code is already running',
    });
  });
});

describe('parseInstallEvent', () => {
  it('reads every type, filling what the backend leaves out', () => {
    expect(parseInstallEvent('{"type":"error","code":"EACCES","message":"m"}')).toEqual({ type: 'error', code: 'EACCES', message: 'm' });
    expect(parseInstallEvent('{"type":"error"}')).toEqual({ type: 'error', code: 'ERROR', message: '' });
    expect(parseInstallEvent('{"type":"output","line":"x","stream":"stderr"}')).toEqual({ type: 'output', line: 'x', stream: 'stderr' });
    expect(parseInstallEvent('{"type":"complete","success":true,"warning":"w"}')).toEqual({
      type: 'complete',
      success: true,
      warning: 'w',
    });
    for (const bad of ['nope', '[]', '{"type":"other"}', '{}']) expect(parseInstallEvent(bad), bad).toBeNull();
  });
});

describe('parseRunEvent', () => {
  const base = { runId: 'r', seq: 1, ts: 2 };

  it('accepts every kind the backend sends', () => {
    const evs = [
      { ...base, kind: 'status', phase: 'init', model: 'mock' },
      { ...base, kind: 'text-delta', text: 'hi', channel: 'assistant' },
      { ...base, kind: 'text-delta' },
      { ...base, kind: 'tool-call', toolCallId: 't', name: 'n', input: { a: [1] } },
      { ...base, kind: 'tool-result', toolCallId: 't', name: 'n', output: 'ok' },
      { ...base, kind: 'cost', costUsd: 0.1, usage: { inputTokens: 1, outputTokens: 2 } },
      { ...base, kind: 'error', code: 'mock', message: 'boom', fatal: true },
      { ...base, kind: 'done', reason: 'success', summary: 's' },
    ];
    for (const e of evs) expect(parseRunEvent(JSON.stringify(e))).toEqual(e);
  });

  it('drops what it cannot use instead of throwing', () => {
    for (const bad of [
      'not json',
      '[]',
      JSON.stringify({ ...base, kind: 'new-kind' }),
      JSON.stringify({ ...base, seq: '1', kind: 'done', reason: 'success' }),
      JSON.stringify({ ...base, kind: 'tool-call', name: 'no id' }),
      JSON.stringify({ ...base, kind: 'done' }),
    ]) {
      expect(parseRunEvent(bad), bad).toBeNull();
    }
  });

  it('gives an error event without a message an empty one', () => {
    expect(parseRunEvent(JSON.stringify({ ...base, kind: 'error' }))).toMatchObject({ message: '' });
  });

  it('reads a plan: the whole list, odd steps made safe, an omitted list as a cleared plan', () => {
    const plan = [
      { content: 'read', status: 'completed', priority: 'high' },
      { content: 'write', status: 'in_progress' },
      { content: 'test', status: 'blocked', priority: 'urgent' },
      { content: '  ', status: 'pending' },
      { status: 'pending' },
      'not a step',
    ];
    expect(parseRunEvent(JSON.stringify({ ...base, kind: 'plan', plan }))).toEqual({
      ...base,
      kind: 'plan',
      plan: [
        { content: 'read', status: 'completed', priority: 'high' },
        { content: 'write', status: 'in_progress' },
        { content: 'test', status: 'pending' },
      ],
    });
    expect(parseRunEvent(JSON.stringify({ ...base, kind: 'plan' }))).toEqual({ ...base, kind: 'plan', plan: [] });
    expect(parseRunEvent(JSON.stringify({ ...base, kind: 'plan', plan: 'x' }))).toEqual({ ...base, kind: 'plan', plan: [] });
  });
});
