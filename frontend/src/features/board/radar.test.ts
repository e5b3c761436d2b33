import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Radar } from '../../lib/api/radarClient';
import { RadarStore } from './radar.svelte';

const answer: Radar = {
  pairs: [{ a: 'T1', b: 'T2', repoPath: '/r', sameBase: true, files: [{ path: 'a.txt', hunks: [] }] }],
  order: ['T1', 'T2'],
  titles: { T1: 'one', T2: 'two' },
  tasks: 2,
  at: 1,
};

describe('RadarStore', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('polls while held, once for many holders, and stops when the last lets go', async () => {
    const get = vi.fn(async () => answer);
    const store = new RadarStore({ get }, 1_000);
    const r1 = store.retain();
    const r2 = store.retain();
    await vi.advanceTimersByTimeAsync(0);
    expect(get).toHaveBeenCalledTimes(1);
    expect(store.overlaps('T2').map((o) => o.other)).toEqual(['T1']);
    expect(store.title('T1')).toBe('one');
    expect(store.title('T9')).toBe('T9');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(get).toHaveBeenCalledTimes(2);
    r1();
    r1(); // a second release changes nothing
    await vi.advanceTimersByTimeAsync(1_000);
    expect(get).toHaveBeenCalledTimes(3);
    r2();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(get).toHaveBeenCalledTimes(3);
  });

  it('keeps the last answer when a poll fails', async () => {
    let fail = false;
    const store = new RadarStore({ get: async () => (fail ? Promise.reject(new Error('down')) : answer) }, 1_000);
    const release = store.retain();
    await vi.advanceTimersByTimeAsync(0);
    fail = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.radar).toBe(answer);
    release();
  });
});
