// Plain words and small decisions about the quota ledger, kept out of the
// components so they read the same on the Spend page, the board and the
// drawer, and are tested once.

import type { Deferral, QuotaStatus, QuotaWindow } from '../../lib/api/quota';
import { clockTime } from '../../lib/format';

/** A window's name in words: "five-hour", "weekly", "weekly (Opus)", "requests", "input tokens". */
export function windowLabel(name: string): string {
  switch (name) {
    case 'five_hour':
      return 'five-hour';
    case 'seven_day':
      return 'weekly';
    case 'seven_day_opus':
      return 'weekly (Opus)';
    case 'requests':
      return 'requests';
    case 'tokens':
      return 'tokens';
  }
  const model = /^seven_day_([a-z0-9]+)$/.exec(name);
  if (model) return `weekly (${model[1]![0]!.toUpperCase()}${model[1]!.slice(1)})`;
  return name.replace(/_/g, ' ');
}

/**
 * The whole percent shown for a utilization (a fraction), or null when not
 * reported. The bar is drawn at this same figure so the two never disagree;
 * a window not yet full never rounds up to 100, and one barely used says 0.
 */
export function quotaPercent(utilization: number | null): number | null {
  if (utilization === null || !Number.isFinite(utilization)) return null;
  const p = Math.max(0, Math.round(utilization * 100));
  return p >= 100 && utilization < 1 ? 99 : p;
}

/** The bar's width in percent (0–100; the text says when it is over). */
export function barWidth(percent: number | null): number {
  return percent === null ? 0 : Math.min(100, percent);
}

/** "97 %", or "unknown" when not reported. */
export function percentText(utilization: number | null): string {
  const p = quotaPercent(utilization);
  return p === null ? 'unknown' : `${p} %`;
}

/** "2h 14m", "14m", "3d 4h", "under a minute" until `at`; "now" once passed. Whole minutes, rounded down. */
export function countdown(at: number, now: number): string {
  const ms = at - now;
  if (ms <= 0) return 'now';
  const mins = Math.floor(ms / 60_000);
  if (mins < 1) return 'under a minute';
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  if (d > 0) return h > 0 ? `${d}d ${h}h` : `${d}d`;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  return `${m}m`;
}

/**
 * "resets in 2h 14m (14:20)", "reset" once passed; for a rejection that
 * named no reset time, when it clears by itself; "" when the runtime gave
 * no reset time and nothing is held.
 */
export function resetText(w: Pick<QuotaWindow, 'resetsAt' | 'reset'> & { clearsAt?: number | null }, now: number): string {
  if (w.reset) return 'reset';
  if (w.resetsAt === null && w.clearsAt) return `no reset time reported: clears by ${clockTime(w.clearsAt, now)} if nothing says otherwise`;
  if (w.resetsAt === null) return '';
  if (w.resetsAt <= now) return `reset at ${clockTime(w.resetsAt, now)}`;
  return `resets in ${countdown(w.resetsAt, now)} (${clockTime(w.resetsAt, now)})`;
}

export type StatusTone = 'ok' | 'warn' | 'bad' | 'unknown';

/** A window's status in words, with a glyph and a tone, so it is never said by colour alone. */
export function statusWords(w: Pick<QuotaWindow, 'status' | 'reset'>): { words: string; glyph: string; tone: StatusTone } {
  if (w.reset) return { words: 'Reset since seen', glyph: '↺', tone: 'unknown' };
  return STATUS[w.status];
}

const STATUS: Record<QuotaStatus, { words: string; glyph: string; tone: StatusTone }> = {
  allowed: { words: 'OK', glyph: '✓', tone: 'ok' },
  allowed_warning: { words: 'Near the limit', glyph: '!', tone: 'warn' },
  rejected: { words: 'Limit reached', glyph: '✕', tone: 'bad' },
};

/** The tone of a window against the user's threshold: over it is held back like a warning would be. */
export function windowTone(w: QuotaWindow, threshold: number): StatusTone {
  const s = statusWords(w).tone;
  if (s !== 'ok') return s;
  const p = quotaPercent(w.utilization);
  return p !== null && p >= threshold ? 'warn' : 'ok';
}

/** How tight a window is, for ordering: a rejected one first, then by utilization; a reset one last. */
function tightness(w: QuotaWindow): number {
  if (w.reset) return -1;
  if (w.status === 'rejected') return 1e6;
  return (w.utilization ?? 0) * 100 + (w.status === 'allowed_warning' ? 1e3 : 0);
}

/** The tightest window of each runtime (what the tray tooltip and a card's hint say). */
export function tightestByRuntime(windows: readonly QuotaWindow[]): Map<string, QuotaWindow> {
  const out = new Map<string, QuotaWindow>();
  for (const w of windows) {
    if (w.reset) continue;
    const cur = out.get(w.runtime);
    if (!cur || tightness(w) > tightness(cur)) out.set(w.runtime, w);
  }
  return out;
}

/** The windows of one runtime and account. */
export interface WindowGroup {
  key: string;
  runtime: string;
  account: string;
  windows: QuotaWindow[];
}

const WINDOW_ORDER = ['five_hour', 'seven_day', 'seven_day_opus', 'requests', 'tokens', 'input_tokens', 'output_tokens'];

function windowRank(name: string): number {
  const i = WINDOW_ORDER.indexOf(name);
  return i < 0 ? WINDOW_ORDER.length : i;
}

/** The ledger by runtime (named) then account, each group's windows shortest first. */
export function groupWindows(windows: readonly QuotaWindow[], name: (runtime: string) => string): WindowGroup[] {
  const groups = new Map<string, WindowGroup>();
  for (const w of windows) {
    const key = `${w.runtime}\u0000${w.account}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, runtime: w.runtime, account: w.account, windows: [] }));
    g.windows.push(w);
  }
  const out = [...groups.values()];
  for (const g of out) g.windows.sort((a, b) => windowRank(a.window) - windowRank(b.window) || a.window.localeCompare(b.window));
  return out.sort((a, b) => name(a.runtime).localeCompare(name(b.runtime)) || a.account.localeCompare(b.account));
}

/** "Waiting for Claude Code quota — resumes 14:20" (a card's and the drawer's line). */
export function waitingText(d: Pick<Deferral, 'runtime' | 'until'>, name: (runtime: string) => string, now: number): string {
  return `Waiting for ${name(d.runtime)} quota — resumes ${resumeText(d.until, now)}`;
}

/** "14:20 (in 2h 14m)", or "now" once the time has come (the re-queue is due). */
export function resumeText(until: number, now: number): string {
  if (until <= now) return 'now';
  return `${clockTime(until, now)} (in ${countdown(until, now)})`;
}

/** The deferral of a task, if the governor holds it back. */
export function deferralOf(deferred: readonly Deferral[], taskId: string): Deferral | undefined {
  return deferred.find((d) => d.kind === 'task' && d.taskId === taskId);
}

/** Parses a typed percent ("90", "90 %", " 80%"): a whole number 1..100, else an error's words. */
export function parsePercent(text: string): { value: number } | { error: string } {
  const t = String(text).trim().replace(/\s*%$/, '');
  if (!/^\d+$/.test(t)) return { error: 'Type a whole percent from 1 to 100, like 90.' };
  const n = Number(t);
  if (n < 1 || n > 100) return { error: 'The percent must be from 1 to 100.' };
  return { value: n };
}

/** The windows a quota budget can name: the well-known ones and any the ledger has seen. */
export function windowChoices(windows: readonly QuotaWindow[]): string[] {
  const seen = new Set(['five_hour', 'seven_day', 'seven_day_opus', ...windows.map((w) => w.window)]);
  return [...seen].sort((a, b) => windowRank(a) - windowRank(b) || a.localeCompare(b));
}
