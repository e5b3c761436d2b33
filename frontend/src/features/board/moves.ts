// The board's rules as the UI needs them: the columns in board order, the
// legal-move table (both generated from backend/board's own tables into
// lib/generated/facts.ts; the server checks every move again and its
// refusal wins), and how tasks fill the columns.

import type { Task, TaskStatus } from '../../lib/api/boardTypes';
import { BOARD_MOVES, BOARD_STATUSES } from '../../lib/generated/facts';

/** Columns in board order. */
export const TASK_STATUSES: readonly TaskStatus[] = BOARD_STATUSES;

/** Legal targets per status; done and cancelled are terminal. */
export const LEGAL_MOVES: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = BOARD_MOVES;

/** Whether the table allows from → to (staying put is not a move). */
export function canMove(from: TaskStatus, to: TaskStatus): boolean {
  return LEGAL_MOVES[from].includes(to);
}

/**
 * Where a task may be moved by hand: the table's targets, except that a
 * task a run is working on can only be cancelled (which aborts the run).
 */
export function moveTargets(task: Pick<Task, 'status' | 'runId'>): TaskStatus[] {
  const all = LEGAL_MOVES[task.status];
  return task.runId ? all.filter((s) => s === 'cancelled') : [...all];
}

/**
 * The moves to offer once a newer record of the task arrives, before the
 * server's own list is read again: the list read with the old record while
 * its status and run are unchanged, else the table's targets for the new
 * one (so a task a merge just made done offers no move at all, not
 * "Close without merging…" from the status it had).
 */
export function movesAfter(prev: Pick<Task, 'status' | 'runId'>, moves: TaskStatus[], next: Pick<Task, 'status' | 'runId'>): TaskStatus[] {
  return prev.status === next.status && prev.runId === next.runId ? moves : moveTargets(next);
}

/** How a column takes the card being dragged: "source" is the card's own column. */
export type DropState = 'idle' | 'legal' | 'refused' | 'source';

/** The drop state of column `to` while `dragged` is being dragged (null: no drag). */
export function dropState(dragged: Pick<Task, 'status' | 'runId'> | null, to: TaskStatus): DropState {
  if (!dragged) return 'idle';
  if (dragged.status === to) return 'source';
  return moveTargets(dragged).includes(to) ? 'legal' : 'refused';
}

/** Whether moving to `to` needs a person's override: done over a failed verification. */
export function needsOverride(task: Pick<Task, 'verification'>, to: TaskStatus): boolean {
  return to === 'done' && task.verification !== null && !task.verification.passed;
}

const LABELS: Record<TaskStatus, string> = {
  backlog: 'Backlog',
  todo: 'To do',
  in_progress: 'In progress',
  in_review: 'In review',
  blocked: 'Blocked',
  done: 'Done',
  cancelled: 'Cancelled',
};

export function statusLabel(s: TaskStatus): string {
  return LABELS[s];
}

/** The board's order within a column: highest priority first, then oldest (as the API lists them). */
export function compareTasks(a: Task, b: Task): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Tasks per column, each column in board order. */
export function columns(tasks: readonly Task[]): Record<TaskStatus, Task[]> {
  const out = Object.fromEntries(TASK_STATUSES.map((s) => [s, [] as Task[]])) as Record<TaskStatus, Task[]>;
  for (const t of tasks) out[t.status]?.push(t);
  for (const s of TASK_STATUSES) out[s].sort(compareTasks);
  return out;
}

/**
 * Puts a task record into the list. Records arrive from the live stream,
 * list reads and PATCH answers in any order; an older one (by updatedAt)
 * never replaces a newer one.
 */
export function mergeTask(list: readonly Task[], t: Task): Task[] {
  const i = list.findIndex((x) => x.id === t.id);
  if (i < 0) return [...list, t];
  if (list[i]!.updatedAt > t.updatedAt) return list as Task[];
  const next = [...list];
  next[i] = t;
  return next;
}

/** A path's last element, for cards: "/home/me/src/app" -> "app". */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]+/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}
