// The quota ledger as the app shows it: the windows the runtimes report,
// the silent runtimes, the deferred work, the quota budgets and the
// threshold. One store for the whole app (the Spend page, the board's cards
// and the drawer share it), kept live by the lifecycle stream's "quota"
// events. The events carry only what kind of thing changed, so each burst
// (debounced) re-reads GET /api/quota, as does every (re)connect. An event
// that arrives while a read is in flight may postdate what that read
// answers, so the read is done again once it lands: nothing is lost.

import { getContext, setContext } from 'svelte';
import { describeError } from '../../lib/api/errors';
import type { Deferral, QuotaApi, QuotaLedger, QuotaLimit, QuotaLimitKey, QuotaWindow } from '../../lib/api/quota';
import type { LiveEvents } from '../../lib/live.svelte';
import { deferralOf } from './quotaView';

/** Events within this long make one re-read. */
export const QUOTA_DEBOUNCE_MS = 250;
const RETRY_MS = 3_000;

/** A runtime the app knows: its id, its display name, and whether it can run tasks here. */
export interface KnownRuntime {
  id: string;
  name: string;
  canRun?: boolean;
}

const EMPTY: QuotaLedger = { threshold: 95, windows: [], silent: [], deferred: [], limits: [] };

const sameLimit = (a: QuotaLimitKey, b: QuotaLimitKey): boolean =>
  a.scope === b.scope && a.scopeId === b.scopeId && a.runtime === b.runtime && a.window === b.window;

export class QuotaStore {
  ledger = $state.raw<QuotaLedger>(EMPTY);
  loaded = $state(false);
  /** Why the ledger cannot be read, in words; "" when fine. */
  error = $state('');

  private unsubscribe: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private reading = false;
  /** Something changed while a read was in flight: read again when it lands. */
  private stale = false;

  constructor(
    private readonly api: QuotaApi,
    private readonly live: LiveEvents,
    /** The runtimes the app knows (names, and which can run), read when needed. */
    private readonly known: () => readonly KnownRuntime[] = () => [],
  ) {}

  get threshold(): number {
    return this.ledger.threshold;
  }

  get deferred(): Deferral[] {
    return this.ledger.deferred;
  }

  /** A runtime's display name ("Claude Code"), its id when unknown. */
  runtimeName = (id: string): string => {
    if (id === '') return 'any runtime';
    return this.known().find((r) => r.id === id)?.name ?? id;
  };

  /** The runtimes work can fall back to or a quota budget can name. */
  runtimes(): readonly KnownRuntime[] {
    return this.known().filter((r) => r.canRun !== false);
  }

  /** The deferral holding a task back, if any. */
  deferralOf(taskId: string): Deferral | undefined {
    return deferralOf(this.ledger.deferred, taskId);
  }

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [this.live.onOpen(() => void this.refresh()), this.live.on('quota', () => this.refreshSoon())];
    void this.refresh();
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.timer);
    clearTimeout(this.retry);
  }

  /** Re-reads after a short wait; a burst of events makes one read. */
  refreshSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), QUOTA_DEBOUNCE_MS);
  }

  async refresh(): Promise<void> {
    if (this.reading) {
      this.stale = true;
      return;
    }
    this.reading = true;
    this.stale = false;
    clearTimeout(this.retry);
    try {
      const l = await this.api.ledger();
      this.ledger = l;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
      if (this.unsubscribe.length) this.retry = setTimeout(() => void this.refresh(), RETRY_MS);
    } finally {
      this.reading = false;
    }
    if (this.stale) void this.refresh();
  }

  // ---- changes; each rejects with the backend's ApiError ----

  async setThreshold(percent: number): Promise<void> {
    const saved = await this.api.setThreshold(percent);
    this.ledger = { ...this.ledger, threshold: saved };
  }

  async setLimit(l: QuotaLimit): Promise<void> {
    const saved = await this.api.setLimit(l);
    this.ledger = { ...this.ledger, limits: [...this.ledger.limits.filter((x) => !sameLimit(x, saved)), saved] };
  }

  async deleteLimit(k: QuotaLimitKey): Promise<void> {
    await this.api.deleteLimit(k);
    this.ledger = { ...this.ledger, limits: this.ledger.limits.filter((x) => !sameLimit(x, k)) };
  }

  /** Clears a window at a person's word; the ledger's next read shows what it holds then. */
  async clearWindow(w: QuotaWindow): Promise<void> {
    await this.api.clearWindow(w);
    this.ledger = {
      ...this.ledger,
      windows: this.ledger.windows.filter((x) => !(x.runtime === w.runtime && x.account === w.account && x.window === w.window)),
    };
  }

  async cancelDeferred(id: string): Promise<void> {
    await this.api.cancelDeferred(id);
    this.ledger = { ...this.ledger, deferred: this.ledger.deferred.filter((d) => d.id !== id) };
  }
}

const KEY = Symbol('quota');

/** Makes the store reachable from the board's cards, the drawer and the editors below the caller (App). */
export function provideQuota(store: QuotaStore): void {
  setContext(KEY, store);
}

/** The app's quota store, or null outside the app (a component test, say). */
export function useQuota(): QuotaStore | null {
  return getContext<QuotaStore | undefined>(KEY) ?? null;
}
