// The quota ledger and governor (backend/quota, issue 19), reached as
// `quotaApi`: the usage windows the runtimes report, the runtimes that
// report none, the work deferred until a window resets, the quota budgets
// ("at most 80 % of the weekly window for this team") and the threshold
// above which the governor defers. Kept apart from client.ts so that file
// stays small; its requests are the client's (JSON in and out, refusals as
// ApiError in the backend's words). Times are Unix ms; utilization is a
// fraction (0.97 = 97 %).

import { DecodeError, isObject } from './decode';
import { ApiError } from './errors';
import { jsonRequest } from './mergeClient';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

export type QuotaStatus = 'allowed' | 'allowed_warning' | 'rejected';

/** One row of the ledger: a runtime's (and account's) window as last seen. */
export interface QuotaWindow {
  runtime: string;
  /** The account or plan when the runtime says which; for native, the provider. "" when unknown. */
  account: string;
  /** snake_case: five_hour, seven_day, seven_day_opus, requests, tokens, … */
  window: string;
  status: QuotaStatus;
  utilization: number | null;
  resetsAt: number | null;
  seenAt: number;
  source: string;
  /** The reset time has passed since it was seen: utilization unknown until seen again. */
  reset: boolean;
  /**
   * A rejected window that named no reset time: when it stops holding work
   * if nothing says otherwise (a successful call clears it sooner). null otherwise.
   */
  clearsAt: number | null;
}

/** A runtime that reports no windows, and why. */
export interface QuotaSilent {
  runtime: string;
  why: string;
}

export type DeferralKind = 'task' | 'team-turn';

/** Work the governor held back until a window resets. */
export interface Deferral {
  id: string;
  kind: DeferralKind;
  taskId?: string;
  teamId?: string;
  agentId?: string;
  title: string;
  runtime: string;
  window: string;
  /** When it is re-queued (the window's reset). */
  until: number;
  /** "Claude Code five-hour window at 97 %, resets 14:20". */
  reason: string;
  createdAt: number;
}

export type QuotaScope = 'agent' | 'team';

/** A quota budget: at most maxPercent of a window for an agent or a team. */
export interface QuotaLimit {
  scope: QuotaScope;
  scopeId: string;
  /** "" = any runtime. */
  runtime: string;
  window: string;
  maxPercent: number;
}

/** Which limit (DELETE's query). */
export type QuotaLimitKey = Pick<QuotaLimit, 'scope' | 'scopeId' | 'runtime' | 'window'>;

export interface QuotaLedger {
  /** The percent above which the governor defers (1..100). */
  threshold: number;
  windows: QuotaWindow[];
  silent: QuotaSilent[];
  deferred: Deferral[];
  limits: QuotaLimit[];
}

/** The data of a "quota" event on /api/events: only what changed; the store re-reads. */
export type QuotaEventKind = 'window' | 'deferred' | 'resumed' | 'cancelled' | 'settings' | 'limit';

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const STATUSES: ReadonlySet<string> = new Set<QuotaStatus>(['allowed', 'allowed_warning', 'rejected']);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function decodeWindow(v: unknown): QuotaWindow {
  need(isObject(v) && typeof v.runtime === 'string' && typeof v.window === 'string' && v.window !== '', 'quota window without a runtime or name');
  need(typeof v.status === 'string' && STATUSES.has(v.status), `quota window ${v.runtime}/${v.window} has an unknown status`);
  need(v.utilization === null || v.utilization === undefined || typeof v.utilization === 'number', `quota window ${v.window} utilization`);
  return {
    runtime: v.runtime,
    account: str(v.account),
    window: v.window,
    status: v.status as QuotaStatus,
    utilization: numOrNull(v.utilization),
    resetsAt: numOrNull(v.resetsAt) || null,
    seenAt: numOrNull(v.seenAt) ?? 0,
    source: str(v.source),
    reset: v.reset === true,
    clearsAt: numOrNull(v.clearsAt),
  };
}

export function decodeDeferral(v: unknown): Deferral {
  need(isObject(v) && typeof v.id === 'string' && v.id !== '', 'deferral without an id');
  need(typeof v.until === 'number', `deferral ${v.id} has no until`);
  const d: Deferral = {
    id: v.id,
    kind: v.kind === 'team-turn' ? 'team-turn' : 'task',
    title: str(v.title),
    runtime: str(v.runtime),
    window: str(v.window),
    until: v.until,
    reason: str(v.reason),
    createdAt: numOrNull(v.createdAt) ?? 0,
  };
  if (typeof v.taskId === 'string' && v.taskId) d.taskId = v.taskId;
  if (typeof v.teamId === 'string' && v.teamId) d.teamId = v.teamId;
  if (typeof v.agentId === 'string' && v.agentId) d.agentId = v.agentId;
  return d;
}

export function decodeLimit(v: unknown): QuotaLimit {
  need(isObject(v) && (v.scope === 'agent' || v.scope === 'team'), 'quota budget has an unknown scope');
  need(typeof v.scopeId === 'string' && typeof v.window === 'string', 'quota budget without a scopeId or window');
  need(typeof v.maxPercent === 'number', 'quota budget without maxPercent');
  return { scope: v.scope, scopeId: v.scopeId, runtime: str(v.runtime), window: v.window, maxPercent: v.maxPercent };
}

export function decodeLedger(v: unknown): QuotaLedger {
  need(isObject(v) && typeof v.threshold === 'number', 'quota is not {threshold, windows, …}');
  need(v.windows === null || v.windows === undefined || Array.isArray(v.windows), 'quota windows is not a list');
  const silent = list(v.silent).map((s): QuotaSilent => {
    need(isObject(s) && typeof s.runtime === 'string', 'silent runtime without an id');
    return { runtime: s.runtime, why: str(s.why) };
  });
  return {
    threshold: v.threshold,
    windows: list(v.windows).map(decodeWindow),
    silent,
    deferred: list(v.deferred).map(decodeDeferral),
    limits: list(v.limits).map(decodeLimit),
  };
}

function decodePercent(v: unknown): number {
  need(isObject(v) && typeof v.percent === 'number', 'the quota threshold is not {percent}');
  return v.percent;
}

/** What a run refused by the governor says: its words and, when deferred, until when. */
export interface QuotaRefusal {
  message: string;
  deferredId: string;
  /** When the deferred work resumes (Unix ms); null when it was not deferred. */
  until: number | null;
}

/** Reads a 422 {reason: "quota", error, deferred: {id, until}} refusal; null for any other error. */
export function quotaRefusal(err: unknown): QuotaRefusal | null {
  if (!(err instanceof ApiError) || err.reason !== 'quota') return null;
  const d = isObject(err.body) && isObject(err.body.deferred) ? err.body.deferred : null;
  return {
    message: err.message,
    deferredId: d ? str(d.id) : '',
    until: d ? numOrNull(d.until) : null,
  };
}

const LIMITS = '/api/quota/limits';
const THRESHOLD = '/api/settings/quota-threshold';

export class QuotaApi {
  constructor(private readonly request: Request) {}

  /** The whole ledger: windows, silent runtimes, deferrals, budgets and the threshold. */
  async ledger(signal?: AbortSignal): Promise<QuotaLedger> {
    return decodeLedger(await this.request('GET', '/api/quota', undefined, signal));
  }

  async threshold(signal?: AbortSignal): Promise<number> {
    return decodePercent(await this.request('GET', THRESHOLD, undefined, signal));
  }

  /** Saves the threshold (1..100); answers the saved one. A bad one rejects with the backend's words. */
  async setThreshold(percent: number): Promise<number> {
    return decodePercent(await this.request('PUT', THRESHOLD, { percent }));
  }

  /** Adds a quota budget or replaces the one with the same scope, runtime and window. */
  async setLimit(l: QuotaLimit): Promise<QuotaLimit> {
    const v = await this.request('PUT', LIMITS, l);
    // The answer is the limit (or {limit}); an empty answer means it was saved as sent.
    if (v === null) return l;
    return decodeLimit(isObject(v) && isObject(v.limit) ? v.limit : v);
  }

  async deleteLimit(k: QuotaLimitKey): Promise<void> {
    const q = new URLSearchParams({ scope: k.scope, scopeId: k.scopeId, runtime: k.runtime, window: k.window });
    await this.request('DELETE', `${LIMITS}?${q.toString()}`);
  }

  /** Clears a window at a person's word: the work it held is tried again at once. */
  async clearWindow(w: Pick<QuotaWindow, 'runtime' | 'window' | 'account'>): Promise<void> {
    const q = w.account ? `?${new URLSearchParams({ account: w.account }).toString()}` : '';
    await this.request('DELETE', `/api/quota/windows/${encodeURIComponent(w.runtime)}/${encodeURIComponent(w.window)}${q}`);
  }

  /** Cancels a deferral: the task stays in To do and is not re-queued. */
  async cancelDeferred(id: string): Promise<void> {
    await this.request('DELETE', `/api/quota/deferred/${encodeURIComponent(id)}`);
  }
}

export const quotaApi = new QuotaApi(jsonRequest());
