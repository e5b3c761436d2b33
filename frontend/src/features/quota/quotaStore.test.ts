import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import type { QuotaApi, QuotaLedger } from '../../lib/api/quota';
import type { LiveEvents } from '../../lib/live.svelte';
import { QUOTA_DEBOUNCE_MS, QuotaStore } from './quota.svelte';

const ledger = (over: Partial<QuotaLedger> = {}): QuotaLedger => ({ threshold: 95, windows: [], silent: [], deferred: [], limits: [], ...over });
const deferral = (id: string, taskId = 'T1') => ({
  id,
  kind: 'task' as const,
  taskId,
  title: 'Fix login',
  runtime: 'clawboo-mock',
  window: 'five_hour',
  until: 1,
  reason: 'Mock five-hour window at 97 %',
  createdAt: 0,
});

/** A stream the test drives, and ledger() reads it answers by hand. */
function harness(api: Partial<QuotaApi> = {}) {
  const openers: (() => void)[] = [];
  const listeners = new Map<string, ((data: string) => void)[]>();
  const live = {
    onOpen: (fn: () => void) => (openers.push(fn), () => {}),
    on: (ev: string, fn: (d: string) => void) => (listeners.set(ev, [...(listeners.get(ev) ?? []), fn]), () => {}),
  } as unknown as LiveEvents;
  const reads: { ok: (l: QuotaLedger) => void; fail: (e: unknown) => void }[] = [];
  const full = {
    ledger: () => new Promise<QuotaLedger>((ok, fail) => reads.push({ ok, fail })),
    ...api,
  } as unknown as QuotaApi;
  const store = new QuotaStore(full, live, () => [
    { id: 'clawboo-mock', name: 'Mock', canRun: true },
    { id: 'openclaw', name: 'OpenClaw', canRun: false },
  ]);
  return {
    store,
    reads,
    open: () => openers.forEach((fn) => fn()),
    emit: (kind: string) => listeners.get('quota')?.forEach((fn) => fn(JSON.stringify({ kind }))),
    answer: (l: QuotaLedger) => reads.shift()!.ok(l),
  };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('QuotaStore', () => {
  it('reads on start and on every reconnect', async () => {
    const h = harness();
    h.store.start();
    expect(h.reads).toHaveLength(1);
    h.answer(ledger({ threshold: 90 }));
    await settle();
    expect(h.store.loaded).toBe(true);
    expect(h.store.threshold).toBe(90);
    h.open();
    expect(h.reads).toHaveLength(1);
  });

  it('re-reads once for a burst of events, after the debounce', async () => {
    const h = harness();
    h.store.start();
    h.answer(ledger());
    await settle();
    h.emit('window');
    h.emit('deferred');
    h.emit('window');
    await vi.advanceTimersByTimeAsync(QUOTA_DEBOUNCE_MS - 10);
    expect(h.reads).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(h.reads).toHaveLength(1);
    h.answer(ledger({ deferred: [deferral('D1')] }));
    await settle();
    expect(h.store.deferralOf('T1')?.id).toBe('D1');
  });

  it('does not lose an event that arrives while a read is in flight: it reads again', async () => {
    const h = harness();
    h.store.start();
    h.emit('deferred');
    await vi.advanceTimersByTimeAsync(QUOTA_DEBOUNCE_MS + 1);
    // Still one read: the first is in flight.
    expect(h.reads).toHaveLength(1);
    h.answer(ledger());
    await settle();
    expect(h.reads).toHaveLength(1);
    h.answer(ledger({ deferred: [deferral('D2')] }));
    await settle();
    expect(h.store.deferred.map((d) => d.id)).toEqual(['D2']);
    expect(h.reads).toHaveLength(0);
  });

  it('says why it cannot read, and tries again', async () => {
    const h = harness();
    h.store.start();
    h.reads.shift()!.fail(new ApiError(0, 'cannot reach the Clawboo backend'));
    await settle();
    expect(h.store.error).toBe('cannot reach the Clawboo backend');
    await vi.advanceTimersByTimeAsync(3_000);
    expect(h.reads).toHaveLength(1);
    h.answer(ledger());
    await settle();
    expect(h.store.error).toBe('');
  });

  it('saves the threshold, budgets and cancels, keeping the list in step', async () => {
    const limit = { scope: 'team' as const, scopeId: 'TM', runtime: '', window: 'seven_day', maxPercent: 80 };
    const h = harness({
      setThreshold: async (p: number) => p,
      setLimit: async (l) => l,
      deleteLimit: async () => {},
      cancelDeferred: async () => {},
    });
    h.store.start();
    h.answer(ledger({ deferred: [deferral('D1'), deferral('D2', 'T2')] }));
    await settle();
    await h.store.setThreshold(90);
    expect(h.store.threshold).toBe(90);
    await h.store.setLimit(limit);
    await h.store.setLimit({ ...limit, maxPercent: 70 });
    expect(h.store.ledger.limits).toEqual([{ ...limit, maxPercent: 70 }]);
    await h.store.deleteLimit(limit);
    expect(h.store.ledger.limits).toEqual([]);
    await h.store.cancelDeferred('D1');
    expect(h.store.deferred.map((d) => d.id)).toEqual(['D2']);
    expect(h.store.deferralOf('T1')).toBeUndefined();
  });

  it('names runtimes and offers those that can run', () => {
    const h = harness();
    expect(h.store.runtimeName('clawboo-mock')).toBe('Mock');
    expect(h.store.runtimeName('hermes')).toBe('hermes');
    expect(h.store.runtimeName('')).toBe('any runtime');
    expect(h.store.runtimes().map((r) => r.id)).toEqual(['clawboo-mock']);
  });
});
