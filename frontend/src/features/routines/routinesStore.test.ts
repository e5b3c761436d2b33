import { describe, expect, it } from 'vitest';
import { ApiError, type ApiClient } from '../../lib/api/client';
import type { Fire, FirePage, Schedule, ScheduleList } from '../../lib/api/scheduleTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { RoutinesStore, actionError } from './routines.svelte';
import { T0, fire, schedule } from './fixtures';

/** A lifecycle stream the test drives, and list() / fires() reads it answers by hand. */
function harness(extra: Record<string, unknown> = {}) {
  const openers: (() => void)[] = [];
  const listeners = new Map<string, ((data: string) => void)[]>();
  const live = {
    onOpen: (fn: () => void) => (openers.push(fn), () => {}),
    on: (ev: string, fn: (d: string) => void) => (listeners.set(ev, [...(listeners.get(ev) ?? []), fn]), () => {}),
  } as unknown as LiveEvents;
  const reads: ((l: ScheduleList) => void)[] = [];
  const fireReads: ((p: FirePage) => void)[] = [];
  const api = {
    schedules: {
      list: () => new Promise<ScheduleList>((res) => reads.push(res)),
      fires: () => new Promise<FirePage>((res) => fireReads.push(res)),
      ...extra,
    },
  } as unknown as ApiClient;
  const store = new RoutinesStore(api, live);
  const emit = (ev: string, data: unknown) => listeners.get(ev)?.forEach((fn) => fn(JSON.stringify(data)));
  return {
    store,
    open: () => openers.forEach((fn) => fn()),
    emitSchedule: (s: Schedule) => emit('schedule', { schedule: s }),
    emitDeleted: (id: string) => emit('schedule', { deleted: id }),
    emitFire: (f: Fire) => emit('schedule-fire', { fire: f }),
    answerRead: (schedules: Schedule[]) => reads.shift()!({ schedules, sources: [{ id: 'clawboo-routine', ok: true, writable: true }] }),
    answerFires: (fires: Fire[], nextCursor: string | null = null) => fireReads.shift()!({ fires, nextCursor }),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('RoutinesStore re-read', () => {
  it('reads on start, and keeps a schedule made while the read was in flight', async () => {
    const h = harness();
    h.store.start();
    h.emitSchedule(schedule('new', { createdAt: T0 + 5 }));
    h.answerRead([schedule('old')]);
    await settle();
    expect(h.store.schedules.map((s) => s.id)).toEqual(['new', 'old']);
    expect(h.store.loaded).toBe(true);
    expect(h.store.sources).toHaveLength(1);
  });

  it('drops a schedule deleted while the read was in flight, though the read still lists it', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('a')]);
    await settle();
    h.open();
    h.emitDeleted('a');
    h.answerRead([schedule('a'), schedule('b', { createdAt: T0 - 1 })]);
    await settle();
    expect(h.store.schedules.map((s) => s.id)).toEqual(['b']);
  });

  it('keeps a change made during the read over the older state the read answers', async () => {
    const h = harness();
    h.store.start();
    h.emitSchedule(schedule('a', { status: 'paused', updatedAt: T0 + 10 }));
    h.answerRead([schedule('a', { status: 'idle', updatedAt: T0 })]);
    await settle();
    expect(h.store.get('a')?.status).toBe('paused');
  });

  it('events after the read are applied once, not replayed on the next', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([]);
    await settle();
    h.emitSchedule(schedule('x'));
    h.open();
    h.answerRead([]);
    await settle();
    expect(h.store.schedules).toEqual([]);
  });
});

describe('RoutinesStore fire history', () => {
  it('follows fire events while open, keeping one that came during the first read', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('s1')]);
    await settle();
    h.emitFire(fire('ignored'));
    expect(h.store.history('s1').fires).toEqual([]);
    void h.store.loadFires('s1');
    expect(h.store.history('s1').loading).toBe(true);
    h.emitFire(fire('f2', { dueAt: T0 + 10 }));
    h.answerFires([fire('f1')], 'c1');
    await settle();
    const hist = h.store.history('s1');
    expect(hist.fires.map((f) => f.id)).toEqual(['f2', 'f1']);
    expect(hist.cursor).toBe('c1');
    expect(hist.loading).toBe(false);
    h.emitFire(fire('f2', { dueAt: T0 + 10, outcome: 'success' }));
    expect(h.store.history('s1').fires[0]!.outcome).toBe('success');
  });

  it('loads more by cursor and forgets a closed history', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('s1')]);
    void h.store.loadFires('s1');
    h.answerFires([fire('f2', { dueAt: T0 + 10 })], 'c1');
    await settle();
    void h.store.loadFires('s1', true);
    h.answerFires([fire('f1')], null);
    await settle();
    expect(h.store.history('s1').fires.map((f) => f.id)).toEqual(['f2', 'f1']);
    expect(h.store.history('s1').cursor).toBeNull();
    h.store.closeHistory('s1');
    expect(h.store.histories['s1']).toBeUndefined();
  });

  it('a deleted schedule takes its history with it', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('s1')]);
    void h.store.loadFires('s1');
    h.answerFires([]);
    await settle();
    h.emitDeleted('s1');
    expect(h.store.histories['s1']).toBeUndefined();
  });
});

describe('RoutinesStore firing', () => {
  it('knows a fire runs from the events, with or without a history open', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('s1')]);
    await settle();
    h.emitFire(fire('f1', { outcome: 'running' }));
    expect(h.store.firing['s1']).toBe('f1');
    h.emitFire(fire('f0', { outcome: 'success' }));
    expect(h.store.firing['s1']).toBe('f1');
    h.emitFire(fire('f1', { outcome: 'success' }));
    expect(h.store.firing['s1']).toBeUndefined();
    h.emitFire(fire('f2', { outcome: 'running' }));
    h.emitDeleted('s1');
    expect(h.store.firing['s1']).toBeUndefined();
  });

  it('forgets a fire whose end it may have missed on a re-read, keeping one that started during it', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('s1'), schedule('s2')]);
    await settle();
    h.emitFire(fire('f1', { outcome: 'running' }));
    h.open();
    h.emitFire(fire('f2', { scheduleId: 's2', outcome: 'running' }));
    h.answerRead([schedule('s1'), schedule('s2')]);
    await settle();
    expect(h.store.firing).toEqual({ s2: 'f2' });
  });

  it('learns a running fire from a history read', async () => {
    const h = harness();
    h.store.start();
    h.answerRead([schedule('s1')]);
    void h.store.loadFires('s1');
    h.answerFires([fire('f1', { outcome: 'running' })]);
    await settle();
    expect(h.store.firing['s1']).toBe('f1');
  });
});

describe('RoutinesStore actions', () => {
  it('puts the answer of a pause in the list', async () => {
    const h = harness({ pause: async () => schedule('s1', { status: 'paused', updatedAt: T0 + 1 }) });
    h.store.start();
    h.answerRead([schedule('s1')]);
    await settle();
    expect(await h.store.act('s1', 'pause')).toBe(true);
    expect(h.store.get('s1')?.status).toBe('paused');
    expect(h.store.busy['s1']).toBeUndefined();
  });

  it('keeps a refusal in words', async () => {
    const h = harness({ runNow: async () => Promise.reject(new ApiError(409, 'a fire is running')) });
    h.store.start();
    h.answerRead([schedule('s1')]);
    await settle();
    expect(await h.store.act('s1', 'run')).toBe(false);
    expect(h.store.actionErrors['s1']).toBe('A fire of this routine is already running (a fire is running).');
  });

  it('says each refusal plainly', () => {
    expect(actionError('resume', new ApiError(409, 'its time has passed'))).toMatch(/^Cannot resume it: its time has passed/);
    expect(actionError('pause', new ApiError(404, 'no such schedule'))).toBe('This routine no longer exists.');
    expect(actionError('delete', new ApiError(500, 'database is locked'))).toBe('Could not delete it: database is locked');
  });
});
