import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import type { Host } from '../../lib/api/hostsClient';
import type { LiveEvents } from '../../lib/live.svelte';
import { HostsStore } from './hosts.svelte';

const host = (id: string, name: string, over: Partial<Host> = {}): Host => ({
  id,
  name,
  destination: `me@${id}`,
  state: 'ready',
  os: 'linux',
  arch: 'amd64',
  cores: 4,
  memoryBytes: 2 ** 33,
  runtimes: [],
  concurrency: 4,
  concurrencyAuto: true,
  checkedAt: 1,
  ...over,
});

/** A store whose list() reads the test answers by hand, on a stream the test opens. */
function harness() {
  const openers: (() => void)[] = [];
  const live = { onOpen: (fn: () => void) => (openers.push(fn), () => {}) } as unknown as LiveEvents;
  const reads: { ok: (h: Host[]) => void; fail: (e: unknown) => void }[] = [];
  const store = new HostsStore({ list: () => new Promise<Host[]>((ok, fail) => reads.push({ ok, fail })) }, live);
  return { store, reads, open: () => openers.forEach((fn) => fn()) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('HostsStore', () => {
  it('reads at every stream open; names a host, nothing for this computer', async () => {
    const h = harness();
    h.store.start();
    expect(h.reads).toHaveLength(0);
    expect(h.store.place('h1')).toBe('on another computer');
    h.open();
    h.reads.shift()!.ok([host('h1', 'Build box'), host('h2', 'Old laptop', { state: 'unreachable' })]);
    await tick();
    expect(h.store.loaded).toBe(true);
    expect(h.store.place('h1')).toBe('on Build box');
    expect(h.store.place(null)).toBe('');
    expect(h.store.choices(null).map((c) => c.label)).toEqual(['This computer', 'Build box', 'Old laptop — unreachable']);
    h.open();
    expect(h.reads).toHaveLength(1);
  });

  it('reads once more for an id it does not know before calling it removed', async () => {
    const h = harness();
    h.store.set([host('h1', 'Build box')]);
    expect(h.store.place('h9')).toBe('on a removed host');
    expect(h.store.place('h9')).toBe('on a removed host');
    await tick();
    expect(h.reads).toHaveLength(1); // one read, however often it is asked
    h.reads.shift()!.ok([host('h1', 'Build box'), host('h9', 'New box')]);
    await tick();
    expect(h.store.place('h9')).toBe('on New box');
  });

  it('keeps its list when a read fails, and a list set meanwhile beats an older read', async () => {
    const h = harness();
    h.store.set([host('h1', 'Build box')]);
    const failing = h.store.load();
    h.reads.shift()!.fail(new ApiError(0, 'cannot reach the Clawboo backend'));
    await failing;
    expect(h.store.error).toBe('cannot reach the Clawboo backend');
    expect(h.store.place('h1')).toBe('on Build box');

    const stale = h.store.load();
    h.store.set([host('h1', 'Renamed')]);
    h.reads.shift()!.ok([host('h1', 'Build box')]);
    await stale;
    expect(h.store.place('h1')).toBe('on Renamed');
    expect(h.store.error).toBe('');
  });
});
