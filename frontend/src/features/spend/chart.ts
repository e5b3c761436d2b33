// The arithmetic of the spend charts, kept out of the SVG so it is tested:
// which days the chart shows, a round axis maximum, tick values and bar
// geometry. The ledger groups days in UTC, so these do too.

import type { SpendRow } from '../../lib/api/boardTypes';

const DAY_MS = 86_400_000;

/** A UTC date as the ledger keys it: "2026-11-29". */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The n UTC dates ending with the day of `now`, oldest first. */
export function lastDays(n: number, now: number): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(utcDay(now - i * DAY_MS));
  return out;
}

/** One figure per day, 0 where the ledger has no row. */
export function fillDays(rows: readonly SpendRow[], days: readonly string[]): { key: string; usd: number }[] {
  const byDay = new Map(rows.map((r) => [r.key, r.usd]));
  return days.map((key) => ({ key, usd: byDay.get(key) ?? 0 }));
}

/**
 * A round axis maximum at or above v: 1, 2, 2.5 or 5 times a power of ten,
 * so ticks land on readable amounts. Nothing spent gives $1.
 */
export function niceMax(v: number): number {
  if (!Number.isFinite(v) || v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) {
    // Round away float noise (0.1 * 3 = 0.30000000000000004).
    const c = Number((m * p).toPrecision(12));
    if (c >= v) return c;
  }
  return 10 * p;
}

/**
 * Evenly spaced tick values from 0 to max inclusive. By default the step is
 * round for a niceMax axis: quarters of 1 and 2, fifths of 2.5 and 5.
 */
export function ticks(max: number, count?: number): number[] {
  const lead = max > 0 ? max / 10 ** Math.floor(Math.log10(max)) : 1;
  const n = count ?? (Math.abs(lead - 2.5) < 1e-9 || Math.abs(lead - 5) < 1e-9 ? 5 : 4);
  return Array.from({ length: n + 1 }, (_, i) => Number(((max * i) / n).toPrecision(12)));
}

export interface Bar {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Vertical bars for values on a plot of width × height against max (the
 * axis top). A value above zero is at least one unit tall so a cent among
 * dollars still shows; zero is no bar.
 */
export function layoutBars(values: readonly number[], width: number, height: number, max: number, gap = 2): Bar[] {
  const n = values.length;
  if (n === 0) return [];
  const slot = width / n;
  const w = Math.max(1, slot - gap);
  return values.map((v, i) => {
    const frac = max > 0 ? Math.min(1, Math.max(0, v) / max) : 0;
    const h = v > 0 ? Math.max(1, frac * height) : 0;
    return { x: i * slot + (slot - w) / 2, y: height - h, w, h };
  });
}

/** A bar's share of the largest value, as a percentage for a horizontal bar list. */
export function share(v: number, largest: number): number {
  if (largest <= 0 || v <= 0) return 0;
  return Math.min(100, Math.max(0.5, (v / largest) * 100));
}
