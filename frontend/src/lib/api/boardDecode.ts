// Boundary checks for the board, budget, spend and repository routes, in
// the spirit of decode.ts: check what the views rely on (ids, statuses,
// numbers they do arithmetic with), then give the value its wire type.

import type {
  BoardEvent,
  BrowseListing,
  Budget,
  BudgetEvent,
  Comment,
  CriticMode,
  RecentRepo,
  SpendSummary,
  StorageUsage,
  Task,
  TaskDetail,
  TaskDiff,
  TaskPage,
  TaskStatus,
  WorktreeUsage,
} from './boardTypes';
import { DecodeError, decodeRun, isObject } from './decode';
import type { Run } from './types';

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const TASK_STATUSES: ReadonlySet<string> = new Set<TaskStatus>([
  'backlog',
  'todo',
  'in_progress',
  'in_review',
  'blocked',
  'done',
  'cancelled',
]);

export function decodeTask(v: unknown): Task {
  need(isObject(v) && typeof v.id === 'string' && v.id !== '', 'task without an id');
  need(typeof v.status === 'string' && TASK_STATUSES.has(v.status), `task ${v.id} has an unknown status`);
  need(typeof v.updatedAt === 'number', `task ${v.id} has no updatedAt`);
  need(Array.isArray(v.dependsOn), `task ${v.id} has no dependsOn list`);
  const critic = CRITIC_MODES.has(v.critic as string) ? (v.critic as CriticMode) : 'auto';
  const secrets = Array.isArray(v.secrets) ? v.secrets.filter((s): s is string => typeof s === 'string') : [];
  return { ...(v as unknown as Task), critic, secrets };
}

const CRITIC_MODES: ReadonlySet<string> = new Set<CriticMode>(['auto', 'on', 'off']);

/** A run of a task's list with its role: 'critic' for the critic's reviews, else 'task'. */
export function decodeTaskRun(v: unknown): Run {
  const r = decodeRun(v);
  return { ...r, role: (v as { role?: unknown }).role === 'critic' ? 'critic' : 'task' };
}

export function decodeComment(v: unknown): Comment {
  need(isObject(v) && typeof v.id === 'string' && typeof v.taskId === 'string', 'comment without ids');
  need(typeof v.body === 'string', `comment ${v.id} has no body`);
  return v as unknown as Comment;
}

/** {comment} from adding one. */
export function decodeCommentAnswer(v: unknown): Comment {
  need(isObject(v), 'comment answer is not an object');
  return decodeComment(v.comment);
}

/** {budget} from setting one. */
export function decodeBudgetAnswer(v: unknown): Budget {
  need(isObject(v), 'budget answer is not an object');
  return decodeBudget(v.budget);
}

/** {budget, willRepause} from resuming one. */
export function decodeResume(v: unknown): { budget: Budget; willRepause: boolean } {
  need(isObject(v), 'resume answer is not an object');
  return { budget: decodeBudget(v.budget), willRepause: v.willRepause === true };
}

/** {task} from create, patch and dependency changes. */
export function decodeTaskAnswer(v: unknown): Task {
  need(isObject(v), 'task answer is not an object');
  return decodeTask(v.task);
}

export function decodeTasks(v: unknown): Task[] {
  need(isObject(v) && Array.isArray(v.tasks), 'board is not {tasks: [...]}');
  return v.tasks.map(decodeTask);
}

/** A page of GET /api/board: counts may be missing from an older backend (then they are the page's). */
export function decodeTaskPage(v: unknown): TaskPage {
  const tasks = decodeTasks(v);
  const o = v as { nextCursor?: unknown; counts?: unknown };
  const counts: Partial<Record<TaskStatus, number>> = {};
  if (isObject(o.counts)) for (const [k, n] of Object.entries(o.counts)) if (typeof n === 'number') counts[k as TaskStatus] = n;
  return { tasks, nextCursor: typeof o.nextCursor === 'string' ? o.nextCursor : '', counts };
}

/** A list that Go may send as null when empty (a nil slice: a terminal task's moves). */
function list(v: unknown, what: string): unknown[] {
  need(v === null || v === undefined || Array.isArray(v), `task detail ${what} is not a list`);
  return v ?? [];
}

export function decodeTaskDetail(v: unknown): TaskDetail {
  need(isObject(v), 'task detail is not an object');
  need(v.worktree === null || v.worktree === undefined || isObject(v.worktree), 'task worktree');
  return {
    task: decodeTask(v.task),
    comments: list(v.comments, 'comments').map(decodeComment),
    runs: list(v.runs, 'runs').map(decodeTaskRun),
    worktree: (v.worktree ?? null) as TaskDetail['worktree'],
    children: list(v.children, 'children').map(decodeTask),
    moves: list(v.moves, 'moves').filter((m): m is TaskStatus => typeof m === 'string' && TASK_STATUSES.has(m)),
  };
}

/** A "task" or "comment" event of /api/events. */
export function decodeBoardEvent(v: unknown): BoardEvent {
  need(isObject(v), 'board event is not an object');
  if (v.kind === 'comment') return { kind: 'comment', comment: decodeComment(v.comment) };
  need(v.kind === 'task', `unknown board event ${String(v.kind)}`);
  return { kind: 'task', task: decodeTask(v.task) };
}

export function decodeDiff(v: unknown): TaskDiff {
  need(isObject(v) && typeof v.changed === 'boolean', 'diff has no changed flag');
  need(typeof v.files === 'number' && typeof v.insertions === 'number' && typeof v.deletions === 'number', 'diff counts');
  return { ...(v as unknown as TaskDiff), diff: typeof v.diff === 'string' ? v.diff : '' };
}

export function decodeWorktreeUsage(v: unknown): WorktreeUsage {
  need(isObject(v) && typeof v.totalBytes === 'number' && Array.isArray(v.worktrees), 'worktrees is not {totalBytes, worktrees}');
  return v as unknown as WorktreeUsage;
}

export function decodeStorage(v: unknown): StorageUsage {
  need(
    isObject(v) &&
      typeof v.databaseBytes === 'number' &&
      typeof v.walBytes === 'number' &&
      typeof v.freeBytes === 'number' &&
      typeof v.worktreeBytes === 'number' &&
      isObject(v.retention),
    'storage is not {databaseBytes, walBytes, freeBytes, worktreeBytes, retention}',
  );
  return v as unknown as StorageUsage;
}

export function decodeBudget(v: unknown): Budget {
  need(isObject(v) && typeof v.scope === 'string' && typeof v.scopeId === 'string', 'budget without scope');
  need(typeof v.limitUsd === 'number' && typeof v.spentUsd === 'number', `budget ${v.scope}/${v.scopeId} amounts`);
  return v as unknown as Budget;
}

export function decodeBudgets(v: unknown): Budget[] {
  need(isObject(v) && Array.isArray(v.budgets), 'budgets is not {budgets: [...]}');
  return v.budgets.map(decodeBudget);
}

export function decodeBudgetEvent(v: unknown): BudgetEvent {
  need(isObject(v), 'budget event is not an object');
  return { ...(v as unknown as BudgetEvent), budget: decodeBudget(v.budget) };
}

export function decodeSpend(v: unknown): SpendSummary {
  need(isObject(v) && Array.isArray(v.rows) && typeof v.totalUsd === 'number', 'spend is not {rows, totalUsd}');
  for (const r of v.rows) need(isObject(r) && typeof r.key === 'string' && typeof r.usd === 'number', 'spend row');
  return v as unknown as SpendSummary;
}

export function decodeRecentRepos(v: unknown): RecentRepo[] {
  need(isObject(v) && Array.isArray(v.recent), 'repos is not {recent: [...]}');
  return v.recent.filter((r): r is RecentRepo => isObject(r) && typeof r.path === 'string');
}

export function decodeBrowse(v: unknown): BrowseListing {
  need(isObject(v) && typeof v.path === 'string' && Array.isArray(v.entries), 'folder listing is not {path, entries}');
  return v as unknown as BrowseListing;
}
