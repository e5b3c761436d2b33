import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../lib/api/client';
import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { ApprovalsStore } from './approvals.svelte';

const T0 = 1_790_000_000_000;

function req(id: string, status: ApprovalRequest['status'] = 'pending'): ApprovalRequest {
  return {
    id,
    kind: 'command',
    title: '',
    command: 'rm -rf scratch',
    folder: '/tmp',
    agentId: 'a1',
    reason: '',
    risk: 'high',
    status,
    createdAt: T0,
    expiresAt: T0 + 600_000,
  };
}

/** A lifecycle stream the test drives, and a pending() read it answers by hand. */
function harness() {
  const openers: (() => void)[] = [];
  const listeners = new Map<string, ((data: string) => void)[]>();
  const live = {
    onOpen: (fn: () => void) => (openers.push(fn), () => {}),
    on: (ev: string, fn: (d: string) => void) => (listeners.set(ev, [...(listeners.get(ev) ?? []), fn]), () => {}),
  } as unknown as LiveEvents;
  let answerRead: (list: ApprovalRequest[]) => void = () => {};
  const settled = new Map<string, ApprovalRequest>();
  const api = {
    approvals: {
      pending: () => new Promise<ApprovalRequest[]>((res) => (answerRead = res)),
      get: async (id: string) => {
        const r = settled.get(id);
        if (!r) throw new Error('not found');
        return r;
      },
    },
  } as unknown as ApiClient;
  const store = new ApprovalsStore(api, live);
  return {
    store,
    open: () => openers.forEach((fn) => fn()),
    emit: (kind: 'requested' | 'resolved', a: ApprovalRequest) =>
      listeners.get('approval')?.forEach((fn) => fn(JSON.stringify({ kind, approval: a }))),
    answerRead: (list: ApprovalRequest[]) => answerRead(list),
    settle: (r: ApprovalRequest) => settled.set(r.id, r),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('ApprovalsStore re-read', () => {
  it('keeps a request made while the re-read was in flight (the read predates it)', async () => {
    const h = harness();
    h.store.start();
    h.open();
    h.emit('requested', req('new'));
    h.answerRead([]);
    await settle();
    expect(h.store.pending.map((r) => r.id)).toEqual(['new']);
  });

  it('drops a request answered while the re-read was in flight, though the read still lists it', async () => {
    const h = harness();
    h.store.start();
    h.open();
    h.emit('resolved', req('old', 'denied'));
    h.answerRead([req('old')]);
    await settle();
    expect(h.store.pending).toEqual([]);
  });

  it('after the read, the list is the read: events of an earlier read are not replayed', async () => {
    const h = harness();
    h.store.start();
    h.open();
    h.emit('requested', req('a'));
    h.answerRead([req('a')]);
    await settle();
    h.open();
    h.answerRead([]);
    await settle();
    expect(h.store.pending).toEqual([]);
  });

  it('a card a reconnect dropped, answered in OpenClaw meanwhile, says so instead of vanishing', async () => {
    const h = harness();
    h.store.start();
    h.open();
    h.answerRead([req('gw')]);
    await settle();
    expect(h.store.shown.map((r) => r.id)).toEqual(['gw']);
    // The stream drops; OpenClaw's UI answers; the "resolved" event is lost with the gap.
    h.settle({ ...req('gw', 'expired'), note: 'withdrawn: the caller stopped waiting' });
    h.open();
    h.answerRead([]);
    await settle();
    await settle();
    expect(h.store.pending).toEqual([]);
    expect(h.store.shown.map((r) => [r.id, r.status])).toEqual([['gw', 'expired']]);
    h.store.stop();
  });

  it('a card a reconnect dropped for another reason simply leaves', async () => {
    const h = harness();
    h.store.start();
    h.open();
    h.answerRead([req('x')]);
    await settle();
    h.settle(req('x', 'approved'));
    h.open();
    h.answerRead([]);
    await settle();
    await settle();
    expect(h.store.shown).toEqual([]);
    h.store.stop();
  });
});
