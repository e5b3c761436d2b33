import { describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from './client';
import { DecodeError } from './decode';
import type { OpenClawActivity, OpenClawStatus } from './openclawTypes';

interface Seen {
  url: string;
  method: string;
  body: unknown;
}

/** An ApiClient whose fetch answers with `answer(url)`, recording what was asked. */
function fake(answer: (url: string) => Response) {
  const seen: Seen[] = [];
  const client = new ApiClient(async (url, init) => {
    seen.push({ url, method: init?.method ?? 'GET', body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return answer(url);
  });
  return { client, seen };
}

const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status });

const SETTINGS = { url: 'ws://127.0.0.1:18789', urlSource: 'settings', tokenSet: true, tokenMasked: '••••abcd', tokenSource: 'vault' };

const ENTRY: OpenClawActivity = {
  ts: 1,
  sessionKey: 'agent:main:main',
  agent: 'main',
  event: { kind: 'tool-call', toolCallId: 't1', name: 'read' },
};

describe('api.openclaw', () => {
  it('reads and saves the settings, sending only what it was given', async () => {
    const { client, seen } = fake(json(200, SETTINGS));
    expect(await client.openclaw.settings()).toEqual(SETTINGS);
    expect(await client.openclaw.saveSettings({ token: '' })).toEqual(SETTINGS);
    expect(seen).toEqual([
      { url: '/api/openclaw/settings', method: 'GET', body: undefined },
      { url: '/api/openclaw/settings', method: 'PUT', body: { token: '' } },
    ]);
  });

  it('fills in what the status leaves out', async () => {
    const { client } = fake(json(200, { connection: { status: 'connecting' }, settings: SETTINGS }));
    const s: OpenClawStatus = await client.openclaw.status();
    expect(s.connection).toEqual({ status: 'connecting', attempts: 0 });
    expect(s).toMatchObject({ agents: [], liveRuns: 0, pendingApprovals: 0, mcpServers: {}, mcpRegistered: false, health: { ok: false } });
  });

  it('registers the MCP servers by a bodiless POST and refuses a malformed answer', async () => {
    const ok = fake(json(200, { servers: ['clawboo-memory'], hash: 'h' }));
    expect(await ok.client.openclaw.registerMcp()).toEqual({ servers: ['clawboo-memory'], hash: 'h' });
    expect(ok.seen).toEqual([{ url: '/api/openclaw/mcp', method: 'POST', body: undefined }]);
    await expect(fake(json(200, { ok: true })).client.openclaw.registerMcp()).rejects.toBeInstanceOf(DecodeError);
  });

  it('reads the activity list, bare, wrapped or null', async () => {
    expect(await fake(json(200, { activity: [ENTRY] })).client.openclaw.activity()).toEqual([ENTRY]);
    expect(await fake(json(200, [ENTRY])).client.openclaw.activity()).toEqual([ENTRY]);
    expect(await fake(json(200, { activity: null })).client.openclaw.activity()).toEqual([]);
    await expect(fake(json(200, { activity: [{ sessionKey: 'k' }] })).client.openclaw.activity()).rejects.toThrow(/activity entry/);
  });

  it('errs as every other route does: the backend’s words, an unreachable backend, an unreadable answer', async () => {
    const refused = await fake(json(503, { error: 'openclaw is not configured' }))
      .client.openclaw.status()
      .catch((e: unknown) => e);
    expect(refused).toEqual(new ApiError(503, 'openclaw is not configured'));
    const away = new ApiClient(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(away.openclaw.settings()).rejects.toEqual(new ApiError(0, 'cannot reach the Clawboo backend'));
    await expect(fake(() => new Response('not json', { status: 200 })).client.openclaw.status()).rejects.toThrow(
      'the backend sent an unreadable answer to GET /api/openclaw/status',
    );
  });

  it('re-throws an abort instead of calling the backend unreachable', async () => {
    const client = new ApiClient(async (_url, init) => {
      init?.signal?.throwIfAborted();
      throw new Error('the fetch should have been aborted');
    });
    const ctl = new AbortController();
    ctl.abort();
    const err = await client.openclaw.status(ctl.signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DOMException);
    expect((err as DOMException).name).toBe('AbortError');
  });

  it('streams the status through the client’s fetch, skipping a malformed event', async () => {
    const body = 'event: status\ndata: {"connection":{}}\n\n' + `event: status\ndata: ${JSON.stringify({ connection: { status: 'connected' }, settings: SETTINGS })}\n\n`;
    const { client, seen } = fake(() => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }));
    const got = await new Promise<OpenClawStatus>((resolve, reject) => {
      const s = client.openclaw.streamStatus({
        onData: (v) => {
          s.close();
          resolve(v);
        },
        onFatal: reject,
      });
    });
    expect(got.connection.status).toBe('connected');
    expect(seen[0]).toMatchObject({ url: '/api/openclaw/status', method: 'GET' });
  });
});
