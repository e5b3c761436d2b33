// Merging a reviewed task into its base branch, or pushing it and opening a
// pull request (backend/api/merge.go), reached as `mergeApi`. Kept apart
// from client.ts so that file stays small; its requests are the client's
// (JSON in and out, refusals as ApiError with the body kept).

import { sessionEnded } from './session';
import type { Task } from './boardTypes';
import { decodeTask } from './boardDecode';
import { DecodeError, isObject } from './decode';
import { ApiError, UNREACHABLE, errorFromResponse, type FetchFn } from './errors';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

/** "" = fast-forward when possible, else a merge commit. */
export type MergeStrategy = '' | 'ff' | 'merge' | 'squash';

export interface MergeResult {
  task: Task;
  merge: {
    base: string;
    previous: string;
    commit: string;
    /** What was done: ff, merge, squash, or none (the base already had it). */
    how: 'ff' | 'merge' | 'squash' | 'none';
    /** The user's checkout that had the base checked out and was brought along. */
    checkout?: string;
  };
  warning?: string;
}

export interface PullRequestResult {
  pushed: boolean;
  remote: string;
  branch: string;
  base: string;
  pr: { url: string } | null;
  /** How to open the pull request when gh could not. */
  hint?: string;
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeMergeResult(v: unknown): MergeResult {
  need(isObject(v) && isObject(v.merge) && typeof v.merge.base === 'string' && typeof v.merge.how === 'string', 'merge is not {task, merge}');
  const out: MergeResult = { task: decodeTask(v.task), merge: v.merge as unknown as MergeResult['merge'] };
  if (typeof v.warning === 'string') out.warning = v.warning;
  return out;
}

export function decodePullRequest(v: unknown): PullRequestResult {
  need(isObject(v) && v.pushed === true && typeof v.branch === 'string', 'pull request answer is not {pushed, branch}');
  const pr = isObject(v.pr) && typeof v.pr.url === 'string' ? { url: v.pr.url } : null;
  const out: PullRequestResult = {
    pushed: true,
    remote: typeof v.remote === 'string' ? v.remote : '',
    branch: v.branch,
    base: typeof v.base === 'string' ? v.base : '',
    pr,
  };
  if (typeof v.hint === 'string') out.hint = v.hint;
  return out;
}

/**
 * The files a refused merge names, else []: the conflicted ones (409
 * merge_conflict), or those with uncommitted edits in the checkout that the
 * change touches (409 checkout_overlap).
 */
export function conflictFiles(err: unknown): string[] {
  if (!(err instanceof ApiError) || !['merge_conflict', 'checkout_overlap'].includes(err.reason) || !isObject(err.body) || !Array.isArray(err.body.files))
    return [];
  return err.body.files.filter((f): f is string => typeof f === 'string');
}

/** GET /api/board/{id}/branches: where the task can be merged, and the base a merge would use now. */
export interface TaskBranches {
  base: string;
  branches: string[];
}

export function decodeBranches(v: unknown): TaskBranches {
  need(isObject(v) && typeof v.base === 'string' && Array.isArray(v.branches), 'branches is not {base, branches}');
  return { base: v.base, branches: v.branches.filter((b): b is string => typeof b === 'string') };
}

const url = (taskId: string): string => `/api/board/${encodeURIComponent(taskId)}`;

export class MergeApi {
  constructor(private readonly request: Request) {}

  /** Merges the task into its base branch (or `base`, when given); on success the task is done and its worktree gone. */
  async merge(taskId: string, strategy: MergeStrategy = '', base = ''): Promise<MergeResult> {
    const body: { strategy?: MergeStrategy; base?: string } = {};
    if (strategy) body.strategy = strategy;
    if (base) body.base = base;
    return decodeMergeResult(await this.request('POST', `${url(taskId)}/merge`, body));
  }

  /** The local branches the task can be merged into. */
  async branches(taskId: string, signal?: AbortSignal): Promise<TaskBranches> {
    return decodeBranches(await this.request('GET', `${url(taskId)}/branches`, undefined, signal));
  }

  /** Pushes the task's branch and opens a pull request when gh can. */
  async pullRequest(taskId: string): Promise<PullRequestResult> {
    return decodePullRequest(await this.request('POST', `${url(taskId)}/pr`, {}));
  }
}

/** A JSON request as ApiClient makes them, over fetchFn (default: the global fetch, read at call time). */
export function jsonRequest(fetchFn?: FetchFn): Request {
  return async (method, path, body, signal) => {
    const init: RequestInit = { method, headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, cache: 'no-store' };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    let res: Response;
    try {
      res = await (fetchFn ?? ((i, o) => globalThis.fetch(i, o)))(path, init);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, UNREACHABLE);
    }
    if (res.status === 401) sessionEnded();
    if (!res.ok) throw await errorFromResponse(res);
    // 204 (a secret deleted) has no body to read.
    if (res.status === 204) return null;
    try {
      return (await res.json()) as unknown;
    } catch {
      throw new ApiError(res.status, `the backend sent an unreadable answer to ${method} ${path}`);
    }
  };
}

export const mergeApi = new MergeApi(jsonRequest());
