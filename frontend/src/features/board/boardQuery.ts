// What the board page narrows to (team, agent, runtime, search, the columns
// shown) and how each column is read and ordered: work still to do in the
// order it is picked up (priority, then age), finished work newest first.

import type { Task, TaskQuery, TaskStatus } from '../../lib/api/boardTypes';
import { compareTasks, TASK_STATUSES } from './moves';

export interface BoardFilter {
  teamId: string;
  agentId: string;
  runtime: string;
  /** Search: a title contains it (any case), or it is the task's id. */
  q: string;
  /** The columns shown; empty shows every column. */
  statuses: TaskStatus[];
}

export const NO_FILTER: BoardFilter = { teamId: '', agentId: '', runtime: '', q: '', statuses: [] };

/** How many cards a column reads at a time. */
export const COLUMN_PAGE = 100;

/** Done and Cancelled list the newest first; the rest in the order work is picked up. */
export const finished = (s: TaskStatus): boolean => s === 'done' || s === 'cancelled';

/** Whether a task belongs on the board under the filter (its column aside). */
export function matches(t: Task, f: BoardFilter): boolean {
  if (f.teamId && t.teamId !== f.teamId) return false;
  if (f.agentId && t.assigneeAgentId !== f.agentId) return false;
  if (f.runtime && t.assigneeRuntime !== f.runtime) return false;
  const q = f.q.trim();
  if (q && !t.title.toLowerCase().includes(q.toLowerCase()) && t.id !== q.toUpperCase()) return false;
  return true;
}

/** The columns the filter shows, in board order. */
export function shownStatuses(f: BoardFilter): TaskStatus[] {
  return f.statuses.length ? TASK_STATUSES.filter((s) => f.statuses.includes(s)) : [...TASK_STATUSES];
}

/** The API query for one column's page. */
export function columnQuery(status: TaskStatus, f: BoardFilter, cursor = ''): TaskQuery {
  const q: TaskQuery = { status: [status], limit: COLUMN_PAGE };
  if (f.teamId) q.teamId = f.teamId;
  if (f.agentId) q.agentId = f.agentId;
  if (f.runtime) q.runtime = f.runtime;
  if (f.q.trim()) q.q = f.q.trim();
  if (finished(status)) q.order = 'recent';
  if (cursor) q.cursor = cursor;
  return q;
}

/** A column's order: finished work by last change, newest first. */
export function compareIn(status: TaskStatus): (a: Task, b: Task) => number {
  if (!finished(status)) return compareTasks;
  return (a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Tasks per column, each in its column's order. */
export function columnsOf(tasks: readonly Task[]): Record<TaskStatus, Task[]> {
  const out = Object.fromEntries(TASK_STATUSES.map((s) => [s, [] as Task[]])) as Record<TaskStatus, Task[]>;
  for (const t of tasks) out[t.status]?.push(t);
  for (const s of TASK_STATUSES) out[s].sort(compareIn(s));
  return out;
}
