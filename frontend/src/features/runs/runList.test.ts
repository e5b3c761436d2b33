import { describe, expect, it } from 'vitest';
import type { Run } from '../../lib/api/types';
import { appendPage, belongsInList, mergeRuns, newerRun } from './runList';
import { makeRun } from '../../lib/testing/fixtures';

const run = (id: string, createdAt: number, over: Partial<Run> = {}): Run =>
  makeRun({ id, title: id, createdAt, ...over });

describe('newerRun', () => {
  it('never moves a run backwards', () => {
    const done = run('a', 1, { status: 'succeeded', lastSeq: 5 });
    const live = run('a', 1, { status: 'running', lastSeq: 3 });
    expect(newerRun(done, live)).toBe(done);
    expect(newerRun(live, done)).toBe(done);
    const starting = run('a', 1, { status: 'starting' });
    expect(newerRun(live, starting)).toBe(live);
    expect(newerRun(starting, live)).toBe(live);
  });

  it('takes the later record of the same stage', () => {
    const a = run('a', 1, { lastSeq: 2 });
    const b = run('a', 1, { lastSeq: 4 });
    expect(newerRun(a, b)).toBe(b);
    expect(newerRun(b, a)).toBe(b);
  });
});

describe('mergeRuns', () => {
  it('orders newest first and updates in place', () => {
    let list = mergeRuns({ runs: [], nextCursor: 'c' }, [run('a', 1), run('c', 3), run('b', 2)]);
    expect(list.runs.map((r) => r.id)).toEqual(['c', 'b', 'a']);
    list = mergeRuns(list, [run('b', 2, { status: 'failed' }), run('d', 4)]);
    expect(list.runs.map((r) => `${r.id}:${r.status}`)).toEqual(['d:running', 'c:running', 'b:failed', 'a:running']);
    expect(list.nextCursor).toBe('c');
  });

  it('breaks creation-time ties by id', () => {
    const list = mergeRuns({ runs: [], nextCursor: null }, [run('01A', 5), run('01C', 5), run('01B', 5)]);
    expect(list.runs.map((r) => r.id)).toEqual(['01C', '01B', '01A']);
  });

  it('caps the list and points the cursor at the oldest kept run', () => {
    const many = Array.from({ length: 10 }, (_, i) => run(`r${i}`, i));
    const list = mergeRuns({ runs: [], nextCursor: null }, many, 4);
    expect(list.runs.map((r) => r.id)).toEqual(['r9', 'r8', 'r7', 'r6']);
    expect(list.nextCursor).toBe('r6');
  });

  it('returns the same list for nothing new', () => {
    const list = { runs: [run('a', 1)], nextCursor: null };
    expect(mergeRuns(list, [])).toBe(list);
  });
});

describe('appendPage', () => {
  it('adds older runs and takes the page cursor', () => {
    const list = { runs: [run('b', 2)], nextCursor: 'b' };
    const next = appendPage(list, { runs: [run('a', 1)], nextCursor: null });
    expect(next.runs.map((r) => r.id)).toEqual(['b', 'a']);
    expect(next.nextCursor).toBeNull();
  });
});

describe('belongsInList', () => {
  const list = { runs: [run('c', 3), run('b', 2)], nextCursor: 'b' };

  it('takes runs in the loaded range or already listed', () => {
    expect(belongsInList(list, run('d', 4))).toBe(true);
    expect(belongsInList(list, run('b', 2, { status: 'failed' }))).toBe(true);
  });

  it('leaves a run older than the loaded pages for "load more"', () => {
    expect(belongsInList(list, run('a', 1))).toBe(false);
    expect(belongsInList({ ...list, nextCursor: null }, run('a', 1))).toBe(true);
    expect(belongsInList({ runs: [], nextCursor: null }, run('a', 1))).toBe(true);
  });
});
