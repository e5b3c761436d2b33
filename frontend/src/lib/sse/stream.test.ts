import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import type { SseMessage } from './parser';
import { openSseStream, postSse, type StreamState } from './stream';

const enc = new TextEncoder();

/** What one fake request answers: a status and body pieces, then a clean end or a break. */
interface Script {
  status?: number;
  body?: string;
  chunks?: string[];
  /** End the body with a network error instead of a clean end. */
  breakAfter?: boolean;
  /** Keep the body open until the request is aborted. */
  hang?: boolean;
  /** Reject the fetch itself (server unreachable). */
  unreachable?: boolean;
}

interface Call {
  url: string;
  lastEventId: string | null;
}

/** A fetch that plays scripts in order and, like real fetch, errors the body when aborted. */
function fakeFetch(scripts: Script[]) {
  const calls: Call[] = [];
  const fetch = async (url: string, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    calls.push({ url, lastEventId: headers.get('Last-Event-ID') });
    const s = scripts.shift();
    // Out of script: answer a permanent error so a runaway loop stops (and
    // shows up as a fatal the test did not expect) instead of spinning.
    if (!s) return new Response('{"error":"unexpected request"}', { status: 400 });
    if (s.unreachable) throw new TypeError('Failed to fetch');
    if (s.body !== undefined) {
      return new Response(s.body, { status: s.status ?? 200, headers: { 'Content-Type': 'application/json' } });
    }
    const signal = init?.signal;
    // Pull-based, so queued chunks are read before a scripted break (an
    // errored stream would drop them).
    const pending = [...(s.chunks ?? [])];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        if (s.hang) signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
      },
      pull(c) {
        const next = pending.shift();
        if (next !== undefined) c.enqueue(enc.encode(next));
        else if (s.hang) return new Promise<void>(() => {});
        else if (s.breakAfter) c.error(new TypeError('network error'));
        else c.close();
        return undefined;
      },
    });
    return new Response(stream, { status: s.status ?? 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
  return { fetch, calls };
}

function collect() {
  const messages: SseMessage[] = [];
  const states: StreamState[] = [];
  const fatals: unknown[] = [];
  const sleeps: number[] = [];
  return {
    messages,
    states,
    fatals,
    sleeps,
    onMessage: (m: SseMessage) => messages.push(m),
    onState: (s: StreamState) => states.push(s),
    onFatal: (e: unknown) => fatals.push(e),
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
}

const ev = (id: number, data = `e${id}`) => `id: ${id}\ndata: ${data}\n\n`;

describe('openSseStream', () => {
  it('delivers messages in order and stops when told not to reconnect', async () => {
    const f = fakeFetch([{ chunks: ['retry: 1000\n\n', ev(1) + 'id: 2\nda', 'ta: e2\n\n', ev(3)] }]);
    const c = collect();
    const opens: boolean[] = [];
    const s = openSseStream({
      url: '/api/runs/r/events',
      fetch: f.fetch,
      ...c,
      onOpen: ({ reconnect }) => opens.push(reconnect),
      shouldReconnect: () => false,
    });
    await s.finished;
    expect(c.messages.map((m) => m.data)).toEqual(['e1', 'e2', 'e3']);
    expect(c.states).toEqual(['connecting', 'open', 'closed']);
    expect(opens).toEqual([false]);
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0]?.lastEventId).toBeNull();
    expect(s.lastEventId).toBe('3');
  });

  it('resumes after a broken connection from the last id it saw', async () => {
    const f = fakeFetch([
      { chunks: [ev(1), ev(2), 'id: 3\ndata: never-dispatched'], breakAfter: true },
      { chunks: [ev(3), ev(4)] },
    ]);
    const c = collect();
    let done = false;
    const s = openSseStream({
      url: '/x',
      fetch: f.fetch,
      ...c,
      onMessage: (m) => {
        c.onMessage(m);
        if (m.data === 'e4') done = true;
      },
      shouldReconnect: () => !done,
    });
    await s.finished;
    expect(c.messages.map((m) => m.data)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(f.calls.map((x) => x.lastEventId)).toEqual([null, '2']);
    expect(c.states).toEqual(['connecting', 'open', 'reconnecting', 'open', 'closed']);
  });

  it('sends the starting id on the first request', async () => {
    const f = fakeFetch([{ chunks: [ev(8)] }]);
    const c = collect();
    await openSseStream({ url: '/x', lastEventId: '7', fetch: f.fetch, ...c, shouldReconnect: () => false })
      .finished;
    expect(f.calls[0]?.lastEventId).toBe('7');
  });

  it('keeps the old id across a reconnect whose events carry none', async () => {
    const f = fakeFetch([{ chunks: [ev(5)] }, { chunks: ['data: no-id\n\n'] }, { chunks: [] }]);
    const c = collect();
    let n = 0;
    await openSseStream({ url: '/x', fetch: f.fetch, ...c, shouldReconnect: () => ++n < 3 }).finished;
    expect(c.messages.map((m) => [m.data, m.id])).toEqual([
      ['e5', '5'],
      ['no-id', '5'],
    ]);
    expect(f.calls.map((x) => x.lastEventId)).toEqual([null, '5', '5']);
  });

  it('gives up on a 404 with the backend’s own words', async () => {
    const f = fakeFetch([{ status: 404, body: '{"error":"unknown run \'nope\'"}' }]);
    const c = collect();
    await openSseStream({ url: '/x', fetch: f.fetch, ...c }).finished;
    expect(c.fatals).toHaveLength(1);
    expect(c.fatals[0]).toBeInstanceOf(ApiError);
    expect((c.fatals[0] as ApiError).message).toBe("unknown run 'nope'");
    expect(f.calls).toHaveLength(1);
    expect(c.states).toEqual(['connecting', 'closed']);
  });

  it('backs off exponentially on server errors and unreachable backends, up to a cap, then recovers', async () => {
    const f = fakeFetch([
      { status: 500, body: '{"error":"boom"}' },
      { unreachable: true },
      { status: 503, body: '{"error":"closing"}' },
      { unreachable: true },
      { unreachable: true },
      { chunks: [ev(1)], breakAfter: true },
      { chunks: [ev(2)] },
    ]);
    const c = collect();
    let got = 0;
    await openSseStream({
      url: '/x',
      fetch: f.fetch,
      ...c,
      minDelayMs: 100,
      maxDelayMs: 1000,
      onMessage: (m) => {
        c.onMessage(m);
        got++;
      },
      shouldReconnect: () => got < 2,
    }).finished;
    // Five failures before an open: 100, 200, 400, 800, then capped at 1000.
    // An open resets the backoff, so the break after it waits the minimum.
    expect(c.sleeps).toEqual([100, 200, 400, 800, 1000, 100]);
    expect(c.fatals).toEqual([]);
  });

  it('uses the server’s retry: delay', async () => {
    const f = fakeFetch([{ chunks: ['retry: 250\n\n'] }, { chunks: [] }]);
    const c = collect();
    let n = 0;
    await openSseStream({ url: '/x', fetch: f.fetch, ...c, shouldReconnect: () => ++n < 2 }).finished;
    expect(c.sleeps).toEqual([250]);
  });

  it('close() aborts a hanging stream and no request follows', async () => {
    const f = fakeFetch([{ chunks: [ev(1)], hang: true }]);
    const c = collect();
    let reconnectAsked = false;
    const s = openSseStream({
      url: '/x',
      fetch: f.fetch,
      ...c,
      onMessage: (m) => {
        c.onMessage(m);
        s.close();
      },
      shouldReconnect: () => (reconnectAsked = true),
    });
    await s.finished;
    expect(c.messages).toHaveLength(1);
    expect(f.calls).toHaveLength(1);
    expect(reconnectAsked).toBe(false);
    expect(c.states.at(-1)).toBe('closed');
    expect(c.fatals).toEqual([]);
  });

  it('stops with a fatal error when the consumer throws', async () => {
    const f = fakeFetch([{ chunks: [ev(1), ev(2)] }]);
    const c = collect();
    await openSseStream({
      url: '/x',
      fetch: f.fetch,
      ...c,
      onMessage: () => {
        throw new Error('view bug');
      },
    }).finished;
    expect((c.fatals[0] as Error).message).toBe('view bug');
    expect(f.calls).toHaveLength(1);
  });

  it('waits for an async reconnect decision', async () => {
    const f = fakeFetch([{ chunks: [ev(1)] }, { chunks: [ev(2)] }]);
    const c = collect();
    const causes: string[] = [];
    await openSseStream({
      url: '/x',
      fetch: f.fetch,
      ...c,
      shouldReconnect: async (cause) => {
        causes.push(cause);
        await Promise.resolve();
        return causes.length < 2;
      },
    }).finished;
    expect(causes).toEqual(['eof', 'eof']);
    expect(c.messages.map((m) => m.data)).toEqual(['e1', 'e2']);
  });
});

describe('postSse', () => {
  it('posts its body as JSON and hands on every message until the end', async () => {
    let seen: { method?: string; body?: unknown; type: string | null } | undefined;
    const { fetch } = fakeFetch([{ chunks: ['retry: 1000\n\ndata: {"a":1}\n\n', 'data: {"a":2}\n', '\n'] }]);
    const got: string[] = [];
    await postSse({
      url: '/x',
      body: { k: 'v' },
      onMessage: (m) => got.push(m.data),
      fetch: (url, init) => {
        seen = { method: init?.method, body: JSON.parse(String(init?.body)), type: new Headers(init?.headers).get('Content-Type') };
        return fetch(url, init);
      },
    });
    expect(seen).toEqual({ method: 'POST', body: { k: 'v' }, type: 'application/json' });
    expect(got).toEqual(['{"a":1}', '{"a":2}']);
  });

  it('rejects a refusal with the backend’s words, and never retries', async () => {
    const { fetch, calls } = fakeFetch([{ status: 409, body: '{"error":"an install of codex is already running"}' }]);
    const err = await postSse({ url: '/x', body: {}, onMessage: () => {}, fetch }).catch((e: unknown) => e);
    expect(err).toEqual(new ApiError(409, 'an install of codex is already running'));
    expect(calls).toHaveLength(1);
  });

  it('reports an unreachable backend and a broken stream in words', async () => {
    const down = fakeFetch([{ unreachable: true }]);
    await expect(postSse({ url: '/x', body: {}, onMessage: () => {}, fetch: down.fetch })).rejects.toMatchObject({
      status: 0,
      message: 'cannot reach the Clawboo backend',
    });
    const got: string[] = [];
    const broken = fakeFetch([{ chunks: ['data: one\n\n'], breakAfter: true }]);
    await expect(postSse({ url: '/x', body: {}, onMessage: (m) => got.push(m.data), fetch: broken.fetch })).rejects.toMatchObject({
      status: 0,
      message: 'the connection to the Clawboo backend broke',
    });
    expect(got).toEqual(['one']);
  });

  it('rejects with the AbortError when its signal aborts mid-stream', async () => {
    const ctl = new AbortController();
    const { fetch } = fakeFetch([{ chunks: ['data: one\n\n'], hang: true }]);
    const done = postSse({ url: '/x', body: {}, onMessage: () => ctl.abort(), fetch, signal: ctl.signal });
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
  });
});
