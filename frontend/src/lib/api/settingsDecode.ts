// The Settings page's answers (backend/api/disk.go, backend/api/ports.go):
// the task worktrees on disk, the janitor's last report, the per-repository
// disk budget and the port range worktrees lease from. Checked at the
// boundary like the rest of the API (decode.ts): the fields the page counts
// with must be there; optional ones get defaults.

import { DecodeError, isObject } from './decode';

/** One task worktree on disk. */
export interface DiskWorktree {
  /** "" when the folder's name is not a task id the board knows. */
  taskId: string;
  path: string;
  /** "" when the repository is unknown. */
  repoPath: string;
  bytes: number;
  /** The task's title; "" when no task owns the folder. */
  title: string;
  /** The task's board status (in_review, done, ...); "" when no task owns the folder. */
  status: string;
}

/** What the janitor freed in one task's worktree. */
export interface JanitorReclaimed {
  taskId: string;
  repoPath: string;
  /** Pruned folders, relative to the worktree; empty when the whole worktree was removed. */
  folders: string[];
  bytes: number;
  /** The whole worktree was paused (its work kept on its branch) to keep the repository within the budget. */
  removed: boolean;
}

export interface JanitorRun {
  /** When the pass ran (ms since the epoch). */
  at: number;
  reclaimed: JanitorReclaimed[];
  totalBytes: number;
}

/** GET /api/worktrees. */
export interface WorktreeDisk {
  totalBytes: number;
  worktrees: DiskWorktree[];
  /** 0 = no budget. */
  budgetBytesPerRepo: number;
  /** The folders the janitor prunes from finished worktrees. */
  depFolders: string[];
  /** The last pass that reclaimed anything, or null. */
  janitor: JanitorRun | null;
  /** Task id → title, for the worktrees and the janitor's tasks. */
  titles: Record<string, string>;
}

/** GET|PUT /api/settings/port-range: ports first..last, leased block at a time. */
export interface PortRange {
  first: number;
  last: number;
  block: number;
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function decodeWorktree(v: unknown): DiskWorktree {
  need(isObject(v) && typeof v.path === 'string' && typeof v.bytes === 'number', 'worktree is not {path, bytes}');
  return { taskId: str(v.taskId), path: v.path, repoPath: str(v.repoPath), bytes: v.bytes, title: str(v.title), status: str(v.status) };
}

function decodeReclaimed(v: unknown): JanitorReclaimed {
  need(isObject(v) && typeof v.taskId === 'string' && typeof v.bytes === 'number', 'janitor entry is not {taskId, bytes}');
  return { taskId: v.taskId, repoPath: str(v.repoPath), folders: strings(v.folders), bytes: v.bytes, removed: v.removed === true };
}

function decodeJanitor(v: unknown): JanitorRun | null {
  if (v === null || v === undefined) return null;
  need(isObject(v) && typeof v.at === 'number' && isObject(v.report), 'janitor is not {at, report}');
  const r = v.report;
  need(Array.isArray(r.reclaimed), 'janitor report has no reclaimed list');
  return { at: v.at, reclaimed: r.reclaimed.map(decodeReclaimed), totalBytes: num(r.totalBytes) };
}

export function decodeWorktreeDisk(v: unknown): WorktreeDisk {
  need(isObject(v) && typeof v.totalBytes === 'number' && Array.isArray(v.worktrees), 'worktrees is not {totalBytes, worktrees}');
  const titles: Record<string, string> = {};
  if (isObject(v.titles)) for (const [k, t] of Object.entries(v.titles)) if (typeof t === 'string') titles[k] = t;
  return {
    totalBytes: v.totalBytes,
    worktrees: v.worktrees.map(decodeWorktree),
    budgetBytesPerRepo: num(v.budgetBytesPerRepo),
    depFolders: strings(v.depFolders),
    janitor: decodeJanitor(v.janitor),
    titles,
  };
}

export function decodeWorktreeBudget(v: unknown): number {
  need(isObject(v) && typeof v.bytesPerRepo === 'number', 'worktree budget is not {bytesPerRepo}');
  return v.bytesPerRepo;
}

export function decodePortRange(v: unknown): PortRange {
  need(
    isObject(v) && typeof v.first === 'number' && typeof v.last === 'number' && typeof v.block === 'number',
    'port range is not {first, last, block}',
  );
  return { first: v.first, last: v.last, block: v.block };
}
