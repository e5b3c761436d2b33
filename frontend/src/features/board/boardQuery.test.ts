import { describe, expect, it } from 'vitest';
import { makeTask } from '../../lib/testing/fixtures';
import { columnQuery, columnsOf, COLUMN_PAGE, compareIn, finished, matches, NO_FILTER, shownStatuses } from './boardQuery';
import { TASK_STATUSES } from './moves';

const f = (over: Partial<typeof NO_FILTER>) => ({ ...NO_FILTER, ...over });

describe('boardQuery: matches', () => {
  const t = makeTask({ id: '01HZTASKID', title: 'Fix the Login page', teamId: 'tm1', assigneeAgentId: 'ag1', assigneeRuntime: 'mock' });

  it('lets every task through with no filter', () => {
    expect(matches(t, NO_FILTER)).toBe(true);
    expect(matches(makeTask({ teamId: null, assigneeAgentId: null }), NO_FILTER)).toBe(true);
  });

  it('narrows by team, agent and runtime, each on its own and together', () => {
    expect(matches(t, f({ teamId: 'tm1' }))).toBe(true);
    expect(matches(t, f({ teamId: 'tm2' }))).toBe(false);
    expect(matches(t, f({ agentId: 'ag1' }))).toBe(true);
    expect(matches(t, f({ agentId: 'ag2' }))).toBe(false);
    expect(matches(t, f({ runtime: 'mock' }))).toBe(true);
    expect(matches(t, f({ runtime: 'claude-code' }))).toBe(false);
    expect(matches(t, f({ teamId: 'tm1', agentId: 'ag1', runtime: 'mock' }))).toBe(true);
    expect(matches(t, f({ teamId: 'tm1', agentId: 'ag2', runtime: 'mock' }))).toBe(false);
    expect(matches(makeTask({ teamId: null }), f({ teamId: 'tm1' }))).toBe(false);
  });

  it('searches titles in any case, trimmed, and finds a task by its id', () => {
    expect(matches(t, f({ q: 'login' }))).toBe(true);
    expect(matches(t, f({ q: '  LOGIN PAGE ' }))).toBe(true);
    expect(matches(t, f({ q: 'logout' }))).toBe(false);
    expect(matches(t, f({ q: '01HZTASKID' }))).toBe(true);
    expect(matches(t, f({ q: '01hztaskid' }))).toBe(true);
    expect(matches(t, f({ q: '01HZTASK' }))).toBe(false);
    expect(matches(t, f({ q: '   ' }))).toBe(true);
  });

  it('ignores the columns shown (the column is the caller’s business)', () => {
    expect(matches(makeTask({ status: 'done' }), f({ statuses: ['todo'] }))).toBe(true);
  });
});

describe('boardQuery: columns shown', () => {
  it('shows every column with none chosen', () => {
    expect(shownStatuses(NO_FILTER)).toEqual([...TASK_STATUSES]);
  });

  it('keeps board order whatever order they were chosen in', () => {
    expect(shownStatuses(f({ statuses: ['done', 'backlog', 'in_review'] }))).toEqual(['backlog', 'in_review', 'done']);
  });

  it('calls only Done and Cancelled finished', () => {
    expect(TASK_STATUSES.filter(finished)).toEqual(['done', 'cancelled']);
  });
});

describe('boardQuery: a column’s API query', () => {
  it('asks for one status, a page at a time, with nothing else when unfiltered', () => {
    expect(columnQuery('todo', NO_FILTER)).toEqual({ status: ['todo'], limit: COLUMN_PAGE });
  });

  it('carries every filter, the trimmed search and the cursor', () => {
    expect(columnQuery('in_progress', f({ teamId: 'tm', agentId: 'ag', runtime: 'mock', q: ' fix ' }), 'CUR')).toEqual({
      status: ['in_progress'],
      limit: COLUMN_PAGE,
      teamId: 'tm',
      agentId: 'ag',
      runtime: 'mock',
      q: 'fix',
      cursor: 'CUR',
    });
  });

  it('reads finished columns newest first, the rest in pick-up order', () => {
    expect(columnQuery('done', NO_FILTER).order).toBe('recent');
    expect(columnQuery('cancelled', NO_FILTER).order).toBe('recent');
    for (const s of TASK_STATUSES.filter((s) => !finished(s))) expect(columnQuery(s, NO_FILTER).order).toBeUndefined();
  });

  it('sends no empty search, no empty cursor', () => {
    const q = columnQuery('todo', f({ q: '   ' }), '');
    expect('q' in q).toBe(false);
    expect('cursor' in q).toBe(false);
  });
});

describe('boardQuery: order within a column', () => {
  it('orders work to do by priority, then age', () => {
    const a = makeTask({ id: 'a', priority: 0, createdAt: 2 });
    const b = makeTask({ id: 'b', priority: 3, createdAt: 5 });
    const c = makeTask({ id: 'c', priority: 0, createdAt: 1 });
    expect([a, b, c].sort(compareIn('todo')).map((t) => t.id)).toEqual(['b', 'c', 'a']);
  });

  it('orders finished work by last change, newest first, then by id', () => {
    const a = makeTask({ id: 'A', status: 'done', updatedAt: 10 });
    const b = makeTask({ id: 'B', status: 'done', updatedAt: 30 });
    const c = makeTask({ id: 'C', status: 'done', updatedAt: 10 });
    expect([a, b, c].sort(compareIn('done')).map((t) => t.id)).toEqual(['B', 'C', 'A']);
    expect([a, b, c].sort(compareIn('cancelled')).map((t) => t.id)).toEqual(['B', 'C', 'A']);
  });

  it('groups tasks into every column, each in its order', () => {
    const cols = columnsOf([
      makeTask({ id: 'd1', status: 'done', updatedAt: 1 }),
      makeTask({ id: 't1', status: 'todo', priority: 0, createdAt: 1 }),
      makeTask({ id: 'd2', status: 'done', updatedAt: 9 }),
      makeTask({ id: 't2', status: 'todo', priority: 9, createdAt: 2 }),
    ]);
    expect(Object.keys(cols)).toEqual([...TASK_STATUSES]);
    expect(cols.todo.map((t) => t.id)).toEqual(['t2', 't1']);
    expect(cols.done.map((t) => t.id)).toEqual(['d2', 'd1']);
    expect(cols.backlog).toEqual([]);
  });
});
