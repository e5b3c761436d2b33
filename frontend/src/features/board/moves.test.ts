import { describe, expect, it } from 'vitest';
import type { Task } from '../../lib/api/boardTypes';
import { baseName, canMove, columns, dropState, LEGAL_MOVES, mergeTask, movesAfter, moveTargets, needsOverride, TASK_STATUSES } from './moves';
import { makeTask } from '../../lib/testing/fixtures';

describe('legal moves', () => {
  it('offers no move, so no "Close without merging…", once a merge answer made the task done', () => {
    const review = makeTask({ status: 'in_review', runId: null });
    const read = ['done', 'in_progress', 'blocked', 'todo', 'cancelled'] as const;
    expect(movesAfter(review, [...read], makeTask({ status: 'done', runId: null }))).toEqual([]);
    // Same status and run: the list the server gave stays.
    expect(movesAfter(review, ['todo'], makeTask({ status: 'in_review', runId: null }))).toEqual(['todo']);
    // A run took it: only cancelled, as the table says for a held task.
    expect(movesAfter(makeTask({ status: 'todo', runId: null }), ['in_progress'], makeTask({ status: 'in_progress', runId: 'R' }))).toEqual(['cancelled']);
  });

  it('matches the backend table exactly', () => {
    const allowed = (from: keyof typeof LEGAL_MOVES) => TASK_STATUSES.filter((to) => canMove(from, to));
    expect(allowed('backlog')).toEqual(['todo', 'blocked', 'cancelled']);
    expect(allowed('todo')).toEqual(['backlog', 'in_progress', 'blocked', 'cancelled']);
    expect(allowed('in_progress')).toEqual(['todo', 'in_review', 'blocked', 'done', 'cancelled']);
    expect(allowed('in_review')).toEqual(['todo', 'in_progress', 'blocked', 'done', 'cancelled']);
    expect(allowed('blocked')).toEqual(['backlog', 'todo', 'in_progress', 'cancelled']);
    expect(allowed('done')).toEqual([]);
    expect(allowed('cancelled')).toEqual([]);
  });

  it('never calls staying put a move', () => {
    for (const s of TASK_STATUSES) expect(canMove(s, s)).toBe(false);
  });

  it('lets a task held by a run only be cancelled', () => {
    expect(moveTargets({ status: 'in_progress', runId: 'r1' })).toEqual(['cancelled']);
    expect(moveTargets({ status: 'in_progress', runId: null })).toEqual(['in_review', 'done', 'blocked', 'todo', 'cancelled']);
    expect(moveTargets({ status: 'done', runId: null })).toEqual([]);
  });

  it('says how each column takes a dragged card', () => {
    const t = makeTask({ status: 'backlog' });
    expect(TASK_STATUSES.map((s) => dropState(t, s))).toEqual(['source', 'legal', 'refused', 'refused', 'legal', 'refused', 'legal']);
    expect(dropState(null, 'todo')).toBe('idle');
    expect(dropState(makeTask({ status: 'in_progress', runId: 'r' }), 'done')).toBe('refused');
  });

  it('asks for an override only for done over a failed verification', () => {
    const failed = makeTask({ verification: { command: 'false', exitCode: 1, passed: false, timedOut: false, outputTail: '', durationMs: 1, at: 1 } });
    expect(needsOverride(failed, 'done')).toBe(true);
    expect(needsOverride(failed, 'todo')).toBe(false);
    expect(needsOverride(makeTask(), 'done')).toBe(false);
    expect(needsOverride(makeTask({ verification: { ...failed.verification!, passed: true } }), 'done')).toBe(false);
  });
});

describe('columns', () => {
  it('groups by status, highest priority first, then oldest', () => {
    const ts: Task[] = [
      makeTask({ id: 'a', status: 'todo', priority: 0, createdAt: 1 }),
      makeTask({ id: 'b', status: 'todo', priority: 5, createdAt: 3 }),
      makeTask({ id: 'c', status: 'todo', priority: 0, createdAt: 0 }),
      makeTask({ id: 'd', status: 'done' }),
    ];
    const cols = columns(ts);
    expect(cols.todo.map((t) => t.id)).toEqual(['b', 'c', 'a']);
    expect(cols.done.map((t) => t.id)).toEqual(['d']);
    expect(Object.keys(cols)).toEqual([...TASK_STATUSES]);
    expect(cols.backlog).toEqual([]);
  });

  it('merges records without going back in time', () => {
    const old = makeTask({ id: 'a', status: 'todo', updatedAt: 10 });
    const list = mergeTask([], old);
    expect(list).toEqual([old]);
    const newer = { ...old, status: 'in_progress' as const, updatedAt: 11 };
    expect(mergeTask(list, newer)).toEqual([newer]);
    expect(mergeTask([newer], old)).toEqual([newer]);
    const same = { ...old, title: 'renamed' };
    expect(mergeTask(list, same)).toEqual([same]); // equal time: the later arrival wins
  });

  it('names a repository by its folder', () => {
    expect(baseName('/home/me/src/app')).toBe('app');
    expect(baseName('/home/me/src/app/')).toBe('app');
    expect(baseName('C:\\src\\app')).toBe('app');
    expect(baseName('/')).toBe('/');
  });
});
