import { describe, expect, it } from 'vitest';
import { parseHash, routeHash } from './route';

describe('routes', () => {
  it('parses the known pages and defaults to runs', () => {
    expect(parseHash('')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs/01ABC')).toEqual({ page: 'runs', runId: '01ABC' });
    expect(parseHash('#/runs/01ABC/')).toEqual({ page: 'runs', runId: '01ABC' });
    expect(parseHash('#/runtimes')).toEqual({ page: 'runtimes' });
    expect(parseHash('#/nowhere')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs/%E0%A4%A')).toEqual({ page: 'runs', runId: '%E0%A4%A' });
  });

  it('round-trips', () => {
    for (const h of ['#/runs', '#/runs/a%20b', '#/runtimes']) expect(routeHash(parseHash(h))).toBe(h);
  });
});
