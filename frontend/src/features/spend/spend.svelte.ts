// What the Spend page shows: the ledger by day (last 30 days), by runtime,
// by kind, by agent, by team and by task (the root task a run's work
// belongs to: the ledger's "mission"), worktree disk use beside the database's, and the budgets. Started while the page is
// open: re-read on every (re)connect and, shortly after, whenever a run ends
// (its charge is in the ledger by then); budgets follow "budget" events.

import { describeError, type ApiClient } from '../../lib/api/client';
import type {
  Budget,
  BudgetEvent,
  BudgetRequest,
  BudgetScope,
  SpendSummary,
  StorageUsage,
  WorktreeUsage,
} from '../../lib/api/boardTypes';
import { decodeBudgetEvent } from '../../lib/api/boardDecode';
import { decodeRun } from '../../lib/api/decode';
import { isTerminal } from '../../lib/api/types';
import type { LiveEvents } from '../../lib/live.svelte';
import { applyBudgetEvent, removeBudget, upsertBudget } from './budgets';
import { lastDays } from './chart';

/** Days the chart covers. */
export const CHART_DAYS = 30;
const REFRESH_DELAY_MS = 300;

export class SpendStore {
  days = $state.raw<string[]>(lastDays(CHART_DAYS, Date.now()));
  byDay = $state.raw<SpendSummary | null>(null);
  byRuntime = $state.raw<SpendSummary | null>(null);
  byKind = $state.raw<SpendSummary | null>(null);
  byAgent = $state.raw<SpendSummary | null>(null);
  byTeam = $state.raw<SpendSummary | null>(null);
  /** By root task (the ledger's "mission"). */
  byTask = $state.raw<SpendSummary | null>(null);
  worktrees = $state.raw<WorktreeUsage | null>(null);
  /** The database's files (and the retention budgets that bound its event log). */
  storage = $state.raw<StorageUsage | null>(null);
  budgets = $state.raw<Budget[]>([]);
  /** The last threshold crossing the stream reported, for the banner. */
  crossing = $state.raw<BudgetEvent | null>(null);
  loaded = $state(false);
  error = $state('');

  private unsubscribe: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
  ) {}

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.onOpen(() => void this.refresh()),
      this.live.on('budget', (data) => {
        const ev = decodeBudgetEvent(JSON.parse(data));
        this.budgets = applyBudgetEvent(this.budgets, ev);
        if (ev.crossing) this.crossing = ev;
      }),
      this.live.on('run', (data) => {
        if (isTerminal(decodeRun(JSON.parse(data)).status)) this.refreshSoon();
      }),
    ];
    void this.refresh();
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.timer);
  }

  refreshSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), REFRESH_DELAY_MS);
  }

  async refresh(): Promise<void> {
    const days = lastDays(CHART_DAYS, Date.now());
    try {
      const [byDay, byRuntime, byKind, byAgent, byTeam, byTask, worktrees, storage, budgets] = await Promise.all([
        this.api.spend('day', { since: days[0]! }),
        this.api.spend('runtime'),
        this.api.spend('kind'),
        this.api.spend('agent'),
        this.api.spend('team'),
        this.api.spend('mission'),
        this.api.worktrees(),
        this.api.storage(),
        this.api.budgets(),
      ]);
      this.days = days;
      this.byDay = byDay;
      this.byRuntime = byRuntime;
      this.byKind = byKind;
      this.byAgent = byAgent;
      this.byTeam = byTeam;
      this.byTask = byTask;
      this.worktrees = worktrees;
      this.storage = storage;
      this.budgets = budgets.reduce<Budget[]>((l, b) => upsertBudget(l, b), []);
      this.loaded = true;
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
    }
  }

  // ---- budgets; each rejects with the backend's ApiError ----

  async saveBudget(req: BudgetRequest): Promise<void> {
    this.budgets = upsertBudget(this.budgets, await this.api.setBudget(req));
  }

  async deleteBudget(scope: BudgetScope, scopeId: string): Promise<void> {
    await this.api.deleteBudget(scope, scopeId);
    this.budgets = removeBudget(this.budgets, { scope, scopeId });
  }

  /** Resumes a paused budget; answers whether the grace is already spent (it will pause again). */
  async resumeBudget(scope: BudgetScope, scopeId: string, graceUsd: number): Promise<boolean> {
    const { budget, willRepause } = await this.api.resumeBudget(scope, scopeId, graceUsd);
    this.budgets = upsertBudget(this.budgets, budget);
    return willRepause;
  }
}
