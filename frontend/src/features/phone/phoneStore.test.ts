import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PhoneApi, PhoneApproval } from '../../lib/api/phoneClient';
import { PhoneStore } from './phone.svelte';

const ask = (id: string): PhoneApproval => ({
  id,
  kind: 'command',
  title: 'Run make',
  command: 'make test',
  status: 'pending',
  createdAt: 1,
  expiresAt: Date.now() + 60_000,
  agentName: 'Ada',
  teamName: 'Core',
  hostName: '',
});

/** A phone API holding one request already waiting, and nothing else. */
function fakeApi(): PhoneApi {
  return {
    approvals: async () => [ask('old')],
    runs: async () => [],
    teams: async () => [],
    posts: async () => [],
    quota: async () => ({ threshold: 90, windows: [], runtimeNames: {} }),
  } as unknown as PhoneApi;
}

/** Serves /m/api/events as an SSE body the test writes to. */
function fakeStream() {
  let push: (chunk: string) => void = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      push = (chunk) => c.enqueue(new TextEncoder().encode(chunk));
    },
  });
  vi.stubGlobal('fetch', async () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }));
  return (event: string, data: unknown) => push(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!ok()) throw new Error(`${what} never happened`);
}

afterEach(() => vi.unstubAllGlobals());

describe('the phone page store', () => {
  it('rings for a request that is new, not for what was waiting when it loaded, and ends when removed', async () => {
    const send = fakeStream();
    const alert = vi.fn();
    const store = new PhoneStore(fakeApi(), alert);
    store.start();
    await until('the first read', () => store.state === 'ready');
    expect(store.approvals.map((a) => a.id)).toEqual(['old']);
    expect(alert).not.toHaveBeenCalled();

    send('approval', { kind: 'requested', approval: ask('new') });
    await until('the new request', () => store.approvals.length === 2);
    expect(store.approvals[1]).toMatchObject({ id: 'new', agentName: 'Ada' });
    expect(alert).toHaveBeenCalledTimes(1);

    // The same request told again (a reconnect's replay) rings no more.
    send('approval', { kind: 'requested', approval: ask('new') });
    send('approval', { kind: 'resolved', approval: { ...ask('old'), status: 'approved' } });
    await until('the answered one to leave', () => store.approvals.length === 1);
    expect(store.approvals.map((a) => a.id)).toEqual(['new']);
    expect(alert).toHaveBeenCalledTimes(1);

    send('revoked', {});
    await until('the removal', () => store.state === 'unpaired');
    store.stop();
  });
});
