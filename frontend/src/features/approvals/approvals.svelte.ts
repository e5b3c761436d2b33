// The pending approvals, kept live by the lifecycle stream's "approval"
// events and re-read on every (re)connect. One store for the whole app: the
// Approvals view, the sidebar badge and the cards in run panes share it.

import { getContext, setContext } from 'svelte';
import { ApiError, describeError, type ApiClient } from '../../lib/api/client';
import { decodeApprovalEvent } from '../../lib/api/approvalDecode';
import type { ApprovalDecision, ApprovalEvent, ApprovalRequest } from '../../lib/api/approvalTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { answeredInOpenClaw, applyEvent, pendingList } from './approvalView';
import { addAnswered, appendPage } from './history';

/** What became of this page's own answer to a card. */
export interface AnswerState {
  busy: ApprovalDecision | null;
  /** "" while fine; "already answered" after a 409; otherwise the error in words. */
  error: string;
}

/** How long a card answered elsewhere stays up to say so after a 409. */
const CONFLICT_SHOWN_MS = 6_000;

/** Bound on the events kept while a re-read is in flight (more than a page of requests). */
const MAX_EVENTS_DURING_READ = 500;

export class ApprovalsStore {
  /** Pending requests, oldest first. */
  pending = $state.raw<ApprovalRequest[]>([]);
  /** Requests this page tried to answer too late: shown with "already answered" for a moment. */
  conflicted = $state.raw<ApprovalRequest[]>([]);
  answers = $state<Record<string, AnswerState>>({});
  loaded = $state(false);
  error = $state('');
  /** Answered requests, newest answer first (the Approvals page's history). */
  history = $state.raw<ApprovalRequest[]>([]);
  historyCursor = $state<string | null>(null);
  historyLoaded = $state(false);
  historyError = $state('');
  historyLoading = $state(false);

  private unsubscribe: (() => void)[] = [];
  /**
   * Events that arrived while a re-read was in flight: the list it answers
   * may predate them, so they are applied again on top of it (else a request
   * made during the read would vanish until the next reconnect).
   */
  private duringRead: ApprovalEvent[] | null = null;
  private readGeneration = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
  ) {}

  /** What the cards show: the pending requests, plus those a 409 just told us about. */
  get shown(): ApprovalRequest[] {
    if (this.conflicted.length === 0) return this.pending;
    const ids = new Set(this.pending.map((r) => r.id));
    return [...this.pending, ...this.conflicted.filter((r) => !ids.has(r.id))];
  }

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.onOpen(() => {
        void this.refresh();
        if (this.historyLoaded) void this.loadHistory();
      }),
      this.live.on('approval', (data) => {
        const ev = decodeApprovalEvent(JSON.parse(data));
        // Answered in OpenClaw's own UI: the card stays a moment to say so.
        if (answeredInOpenClaw(ev.approval) && this.pending.some((r) => r.id === ev.approval.id)) this.linger(ev.approval);
        this.pending = applyEvent(this.pending, ev);
        if (this.duringRead && this.duringRead.length < MAX_EVENTS_DURING_READ) this.duringRead.push(ev);
        if (this.historyLoaded) this.history = addAnswered(this.history, ev.approval);
      }),
    ];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.retry);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  async refresh(): Promise<void> {
    const gen = ++this.readGeneration;
    this.duringRead = [];
    try {
      const read = await this.api.approvals.pending();
      if (gen !== this.readGeneration) return;
      let next = pendingList(read);
      for (const ev of this.duringRead ?? []) next = applyEvent(next, ev);
      this.duringRead = null;
      const vanished = this.pending.filter((r) => !next.some((n) => n.id === r.id));
      this.pending = next;
      for (const r of vanished) void this.explain(r.id);
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (gen !== this.readGeneration) return;
      this.duringRead = null;
      this.error = describeError(err);
      clearTimeout(this.retry);
      if (this.unsubscribe.length) this.retry = setTimeout(() => void this.refresh(), 3_000);
    }
  }

  /**
   * A card a re-read dropped was settled while the stream was away (a
   * reconnect loses the events of the gap): ask what became of it, and
   * when OpenClaw's own UI answered it, say so as the live event would.
   */
  private async explain(id: string): Promise<void> {
    try {
      const r = await this.api.approvals.get(id);
      if (answeredInOpenClaw(r) && !this.pending.some((p) => p.id === id)) this.linger(r);
    } catch {
      // Gone or unreachable: the card simply leaves, as before.
    }
  }

  /** Reads the history's first page (again), or with `more` the next one. */
  async loadHistory(more = false): Promise<void> {
    if (this.historyLoading || (more && !this.historyCursor)) return;
    this.historyLoading = true;
    try {
      const page = await this.api.approvals.answered(more ? (this.historyCursor ?? undefined) : undefined);
      this.history = more ? appendPage(this.history, page.approvals) : page.approvals;
      this.historyCursor = page.nextCursor;
      this.historyLoaded = true;
      this.historyError = '';
    } catch (err) {
      this.historyError = describeError(err);
    } finally {
      this.historyLoading = false;
    }
  }

  answer(id: string): AnswerState {
    return this.answers[id] ?? { busy: null, error: '' };
  }

  /** Answers a request from the page. A 409 means someone (or the clock) answered first. */
  async resolve(id: string, decision: ApprovalDecision): Promise<void> {
    if (this.answers[id]?.busy) return;
    this.answers[id] = { busy: decision, error: '' };
    const req = this.pending.find((r) => r.id === id);
    try {
      const done = await this.api.approvals.resolve(id, decision);
      this.pending = this.pending.filter((r) => r.id !== done.id);
      if (this.historyLoaded) this.history = addAnswered(this.history, done);
      delete this.answers[id];
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        this.answers[id] = { busy: null, error: 'already answered' };
        this.pending = this.pending.filter((r) => r.id !== id);
        if (req) this.linger({ ...req, status: 'expired' });
      } else if (err instanceof ApiError && err.status === 404) {
        this.answers[id] = { busy: null, error: 'this request no longer exists' };
        this.pending = this.pending.filter((r) => r.id !== id);
      } else {
        this.answers[id] = { busy: null, error: describeError(err) };
      }
    }
  }

  /** Keeps a request that left the queue on screen for a moment, to say what became of it. */
  private linger(r: ApprovalRequest): void {
    this.conflicted = [...this.conflicted.filter((c) => c.id !== r.id), r];
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.dismiss(r.id);
    }, CONFLICT_SHOWN_MS);
    this.timers.add(t);
  }

  /** Takes a conflicted card down. */
  dismiss(id: string): void {
    this.conflicted = this.conflicted.filter((r) => r.id !== id);
    delete this.answers[id];
  }
}

const KEY = Symbol('approvals');

/** Makes the store reachable from any run pane below the caller (App). */
export function provideApprovals(store: ApprovalsStore): void {
  setContext(KEY, store);
}

/** The app's approvals store, or null outside the app (a component test, say). */
export function useApprovals(): ApprovalsStore | null {
  return getContext<ApprovalsStore | undefined>(KEY) ?? null;
}
