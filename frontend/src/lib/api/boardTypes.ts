// Wire types of the board, budgets, spend and repository-picker routes,
// spelled exactly as the backend's JSON (backend/board, backend/budget,
// backend/worktree, backend/api). Times are Unix milliseconds.

import type { CostKind, Run } from './types';

/** A task's place on the board (board order: see TASK_STATUSES in features/board/moves.ts). */
export type TaskStatus = 'backlog' | 'todo' | 'in_progress' | 'in_review' | 'blocked' | 'done' | 'cancelled';
/** What a task does; a code task gets a git worktree. */
export type TaskKind = 'code' | 'research' | 'review';

/** The result of a task's verify command, run in its worktree after a run changed it. */
export interface Verification {
  command: string;
  exitCode: number;
  passed: boolean;
  timedOut: boolean;
  outputTail: string;
  durationMs: number;
  at: number;
  runId?: string;
}

/** A person marking a task done over a failed verification. */
export interface Override {
  by: string;
  reason: string;
  at: number;
}

/** Whether the critic reviews a task's verified change: auto (when it is risky, and the team allows it), on (always), off (never). */
export type CriticMode = 'auto' | 'on' | 'off';

/** One card on the board. */
export interface Task {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  priority: number;
  kind: TaskKind;
  teamId: string | null;
  parentId: string | null;
  rootId: string;
  depth: number;
  repoPath: string | null;
  baseRef: string | null;
  verifyCommand: string | null;
  /** No worktree: the task works in the repository's own checkout (one such task per repository at a time). Absent from older servers. */
  workInPlace?: boolean;
  /** The critic's setting ('auto' when the server sends none). */
  critic: CriticMode;
  /** The names of the vault secrets its setup, agent, verify and teardown receive ([] when none). */
  secrets: string[];
  assigneeAgentId: string | null;
  assigneeRuntime: string | null;
  /** The run holding the task right now; set only while one works on it. */
  runId: string | null;
  heartbeatAt: number | null;
  verification: Verification | null;
  override: Override | null;
  dependsOn: string[];
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  /** The branch its work goes back into (recorded when its worktree is made, or chosen); null: not yet. Absent from older servers. */
  baseBranch?: string | null;
  /** A green verify merges it by itself (false when left out). Absent from older servers. */
  mergeWhenGreen?: boolean;
  /** Set once its work is in its base branch; null while not. Absent from older servers (then merging from done is not offered). */
  merged?: TaskMerged | null;
  /** The host its last run went to (Settings → Hosts); null: this computer. Absent from older servers. */
  hostId?: string | null;
}

/** How a task's work landed in its base branch. */
export interface TaskMerged {
  base: string;
  commit: string;
  how: 'ff' | 'merge' | 'squash' | 'none';
  at: number;
}

export interface Comment {
  id: string;
  taskId: string;
  authorType: 'user' | 'agent' | 'system';
  authorId: string | null;
  body: string;
  createdAt: number;
}

/** The record of a code task's git worktree. */
export interface TaskWorktree {
  taskId: string;
  repoPath: string;
  path: string;
  branch: string;
  baseCommit: string;
  status: 'active' | 'paused' | 'archived';
  /** The ports it leases while its folder lives (CLAWBOO_PORT is the first); empty or absent when none. */
  ports?: number[];
  createdAt: number;
  updatedAt: number;
}

/** GET /api/board/{id}. */
export interface TaskDetail {
  task: Task;
  comments: Comment[];
  /** Newest first, the critic's reviews among them (role 'critic'); a live run as its live view. */
  runs: Run[];
  worktree: TaskWorktree | null;
  children: Task[];
  /** Legal targets from the task's status when it was read. */
  moves: TaskStatus[];
}

export interface NewTaskRequest {
  title: string;
  description?: string;
  status?: 'backlog' | 'todo';
  priority?: number;
  teamId?: string;
  parentTaskId?: string;
  repoPath?: string;
  baseRef?: string;
  kind?: TaskKind;
  verifyCommand?: string;
  /** Work in the repository's own checkout, no worktree. */
  workInPlace?: boolean;
  /** Whether the critic reviews its verified change (auto when left out). */
  critic?: CriticMode;
  /** Names of vault secrets it receives as environment variables (Settings → Secrets). */
  secrets?: string[];
  /** The agent meant to work it (its runtime comes with it). */
  assigneeAgentId?: string;
  /** The branch its work goes back into; left out: the branch checked out when its work starts. */
  baseBranch?: string;
  /** Merge it by itself once its verify is green. */
  mergeWhenGreen?: boolean;
}

export interface TaskPatch {
  title?: string;
  description?: string;
  priority?: number;
  status?: TaskStatus;
  repoPath?: string;
  verifyCommand?: string;
  workInPlace?: boolean;
  critic?: CriticMode;
  secrets?: string[];
  humanOverride?: { by: string; reason: string };
  baseBranch?: string;
  mergeWhenGreen?: boolean;
}

/** POST /api/runtimes/{id}/run for a board task. */
export interface TaskRunRequest {
  taskId: string;
  message?: string;
  assigneeAgentId?: string;
  repoPath?: string;
  kind?: TaskKind;
  model?: string;
}

/** GET /api/board/{id}/diff: the task's change against its base commit (the diff text is capped). */
export interface TaskDiff {
  taskId: string;
  branch: string;
  baseCommit: string;
  changed: boolean;
  files: number;
  insertions: number;
  deletions: number;
  diff: string;
  /** The file of each "diff --git" section, in order (the only paths a line comment may name). */
  paths?: string[];
  /** The worktree and its branch were removed: nothing changed, or (merged) the change was merged. */
  removed?: boolean;
  merged?: boolean;
}

export interface WorktreeUsage {
  totalBytes: number;
  worktrees: { taskId: string; path: string; repoPath: string; bytes: number }[];
}

/** GET /api/storage: the disk Clawboo's own data takes, and the event log's retention budgets. */
export interface StorageUsage {
  databaseBytes: number;
  walBytes: number;
  /** Empty pages inside the database file (left by compaction), reused before it grows. */
  freeBytes: number;
  worktreeBytes: number;
  retention: { compactAfterHours: number; compactOverBytes: number };
}

/** The "task" and "comment" events of /api/events. */
export type BoardEvent = { kind: 'task'; task: Task } | { kind: 'comment'; comment: Comment };

export type BudgetScope = 'agent' | 'mission' | 'team';
export type BudgetMode = 'warn' | 'cap';
export type BudgetStatus = 'ok' | 'warned' | 'exceeded' | 'paused';

/** A spending limit on an agent, a mission (a root task id) or a team. */
export interface Budget {
  scope: BudgetScope;
  scopeId: string;
  limitUsd: number;
  spentUsd: number;
  mode: BudgetMode;
  status: BudgetStatus;
  createdAt: number;
  updatedAt: number;
}

export interface BudgetRequest {
  scope: BudgetScope;
  scopeId: string;
  limitUsd: number;
  mode: BudgetMode;
}

/** The "budget" event of /api/events. */
export interface BudgetEvent {
  kind: string;
  budget: Budget;
  crossing?: { scope: BudgetScope; scopeId: string; level: number; mode: BudgetMode; paused: boolean };
}

export type SpendBy = 'day' | 'runtime' | 'agent' | 'team' | 'mission' | 'model' | 'kind';

/** One group of the spend summary; key "" means none (no agent, say). */
export interface SpendRow {
  key: string;
  usd: number;
  nano: number;
  runs: number;
  byKind: Partial<Record<CostKind, number>>;
}

export interface SpendSummary {
  by: SpendBy;
  rows: SpendRow[];
  totalUsd: number;
}

/** A repository tasks already use (GET /api/repos). */
export interface RecentRepo {
  path: string;
  isRepo: boolean;
  branch: string | null;
}

/** One folder listing of the repository picker (GET /api/repos/browse). */
export interface BrowseListing {
  path: string;
  parent: string | null;
  isRepo: boolean;
  branch: string | null;
  entries: { name: string; path: string; isRepo: boolean }[];
  truncated?: boolean;
}

/** What GET /api/board narrows to and where it continues (see backend/board/page.go). */
export interface TaskQuery {
  status?: TaskStatus[];
  teamId?: string;
  agentId?: string;
  runtime?: string;
  /** A title contains it (any case), or it is the id. */
  q?: string;
  /** "recent": newest change first (finished work); default: priority, then oldest. */
  order?: 'priority' | 'recent';
  limit?: number;
  cursor?: string;
}

/** One page of the board. */
export interface TaskPage {
  tasks: Task[];
  /** The next page's cursor; "" when this is the last. */
  nextCursor: string;
  /** Tasks per status over the whole filter, not just this page. */
  counts: Partial<Record<TaskStatus, number>>;
}
