// Pure operations on the list of recent runs: ordering, merging updates from
// several sources (list pages, the lifecycle stream, single fetches) without
// ever moving a run backwards, and a bound on the list's length.

import type { Run, RunStatus } from '../../lib/api/types';

/** How many runs the page keeps in memory; older ones are re-fetched with "load more". */
export const MAX_RUNS = 500;

function rank(s: RunStatus): number {
  return s === 'starting' ? 0 : s === 'running' ? 1 : 2;
}

/**
 * Which of two records of the same run to keep. Updates arrive from the
 * lifecycle stream, list pages and single fetches in any order; a record
 * never replaces one further along (a stale "running" after "succeeded").
 */
export function newerRun(old: Run, next: Run): Run {
  const a = rank(old.status);
  const b = rank(next.status);
  if (b < a) return old;
  if (b === a && next.lastSeq < old.lastSeq) return old;
  return next;
}

/** Newest first: by creation time, then by id (ids sort by time too). */
export function compareRuns(a: Run, b: Run): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export interface RunList {
  runs: Run[];
  /** Cursor for "load more", or null when the oldest run is loaded. */
  nextCursor: string | null;
}

/**
 * Merges records into the list, newest first, capped at max. When the cap
 * drops runs, the cursor moves to the oldest kept run so "load more" brings
 * the dropped ones back.
 */
export function mergeRuns(list: RunList, incoming: readonly Run[], max = MAX_RUNS): RunList {
  if (incoming.length === 0) return list;
  const byId = new Map<string, Run>();
  for (const r of list.runs) byId.set(r.id, r);
  for (const r of incoming) {
    const old = byId.get(r.id);
    byId.set(r.id, old ? newerRun(old, r) : r);
  }
  let runs = [...byId.values()].sort(compareRuns);
  let nextCursor = list.nextCursor;
  if (runs.length > max) {
    runs = runs.slice(0, max);
    nextCursor = runs[runs.length - 1]!.id;
  }
  return { runs, nextCursor };
}

/**
 * Whether a record fetched on its own (a run opened by its URL) belongs in
 * the list: a run older than the oldest loaded one, while older pages are
 * still unloaded, would sit below a gap; it waits for "load more" instead.
 */
export function belongsInList(list: RunList, run: Run): boolean {
  const oldest = list.runs[list.runs.length - 1];
  if (list.nextCursor === null || oldest === undefined) return true;
  return list.runs.some((r) => r.id === run.id) || compareRuns(run, oldest) <= 0;
}

/** Appends an older page fetched with the list's cursor. */
export function appendPage(list: RunList, page: RunList, max = MAX_RUNS): RunList {
  return mergeRuns({ runs: list.runs, nextCursor: page.nextCursor }, page.runs, max);
}
