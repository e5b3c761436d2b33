import { describe, expect, it } from 'vitest';
import { fillDays, lastDays, layoutBars, niceMax, share, ticks, utcDay } from './chart';

const row = (key: string, usd: number) => ({ key, usd, nano: usd * 1e9, runs: 1, byKind: {} });

describe('spend chart', () => {
  it('lists the last n UTC days, oldest first, across a month end', () => {
    const now = Date.UTC(2026, 2, 2, 23, 30); // 2 March 2026, late evening UTC
    expect(utcDay(now)).toBe('2026-03-02');
    expect(lastDays(4, now)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(lastDays(30, now)).toHaveLength(30);
  });

  it('fills days the ledger has no row for with zero', () => {
    expect(fillDays([row('2026-03-01', 0.25), row('2020-01-01', 9)], ['2026-02-28', '2026-03-01'])).toEqual([
      { key: '2026-02-28', usd: 0 },
      { key: '2026-03-01', usd: 0.25 },
    ]);
  });

  it('rounds the axis up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(-3)).toBe(1);
    expect(niceMax(Number.NaN)).toBe(1);
    expect(niceMax(0.25)).toBe(0.25);
    expect(niceMax(0.26)).toBe(0.5);
    expect(niceMax(0.3)).toBe(0.5);
    expect(niceMax(1)).toBe(1);
    expect(niceMax(1.2)).toBe(2);
    expect(niceMax(2.2)).toBe(2.5);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(0.0042)).toBe(0.005);
    expect(niceMax(1234)).toBe(2000);
  });

  it('spaces ticks evenly without float noise', () => {
    expect(ticks(1)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(ticks(2)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(ticks(0.25)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.25]);
    expect(ticks(50)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(ticks(0.3, 3)).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('scales bars to the plot, keeping small non-zero values visible', () => {
    const bars = layoutBars([0, 0.5, 1, 0.001], 400, 100, 1, 4);
    expect(bars).toHaveLength(4);
    expect(bars[0]).toEqual({ x: 2, y: 100, w: 96, h: 0 });
    expect(bars[1]).toEqual({ x: 102, y: 50, w: 96, h: 50 });
    expect(bars[2]).toEqual({ x: 202, y: 0, w: 96, h: 100 });
    expect(bars[3]!.h).toBe(1);
    expect(layoutBars([], 400, 100, 1)).toEqual([]);
    // A value above the axis is clipped to the plot.
    expect(layoutBars([5], 10, 100, 1, 0)[0]).toEqual({ x: 0, y: 0, w: 10, h: 100 });
  });

  it('gives horizontal bars a share of the largest', () => {
    expect(share(0.25, 0.5)).toBe(50);
    expect(share(0, 1)).toBe(0);
    expect(share(1, 0)).toBe(0);
    expect(share(0.0001, 100)).toBe(0.5);
  });
});
