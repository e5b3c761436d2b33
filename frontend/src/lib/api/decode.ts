// Light shape checks at the API boundary. JSON arrives as `unknown`; these
// guards check the fields the UI relies on (ids, discriminants, numbers it
// does arithmetic with) before a value is given its wire type, so a backend
// change shows up as a clear error instead of `undefined` deep in a view.
// They do not re-validate every optional field: the Go structs are the
// contract and types.ts mirrors them.

import type { Health, Run, RunEvent, RunsPage, RunStatus, RuntimesResponse } from './types';

export class DecodeError extends Error {
  override name = 'DecodeError';
}

type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const RUN_STATUSES: ReadonlySet<string> = new Set<RunStatus>([
  'starting',
  'running',
  'succeeded',
  'failed',
  'aborted',
  'timed_out',
]);

export function decodeRun(v: unknown): Run {
  need(isObject(v), 'run is not an object');
  need(typeof v.id === 'string' && v.id !== '', 'run without an id');
  need(typeof v.status === 'string' && RUN_STATUSES.has(v.status), `run ${String(v.id)} has an unknown status`);
  need(typeof v.createdAt === 'number', `run ${v.id} has no createdAt`);
  need(typeof v.lastSeq === 'number', `run ${v.id} has no lastSeq`);
  return v as unknown as Run;
}

export function decodeRunsPage(v: unknown): RunsPage {
  need(isObject(v) && Array.isArray(v.runs), 'runs list is not {runs: [...]}');
  const next = v.nextCursor;
  need(next === null || next === undefined || typeof next === 'string', 'nextCursor is not a string');
  return { runs: v.runs.map(decodeRun), nextCursor: next ?? null };
}

export function decodeHealth(v: unknown): Health {
  need(isObject(v) && typeof v.ok === 'boolean', 'health is not {ok, version}');
  return { ok: v.ok, version: typeof v.version === 'string' ? v.version : '' };
}

export function decodeRuntimes(v: unknown): RuntimesResponse {
  need(isObject(v) && Array.isArray(v.runtimes) && Array.isArray(v.available), 'runtimes is not {runtimes, available}');
  for (const r of v.runtimes) {
    need(isObject(r) && typeof r.id === 'string' && isObject(r.capabilities) && isObject(r.health), 'runtime entry');
  }
  for (const r of v.available) need(isObject(r) && typeof r.id === 'string', 'available runtime');
  return v as unknown as RuntimesResponse;
}

export function decodeStartRun(v: unknown): { runId: string } {
  need(isObject(v) && typeof v.runId === 'string' && v.runId !== '', 'start run answer has no runId');
  return { runId: v.runId };
}

const str = (v: unknown): v is string => typeof v === 'string';
const optStr = (v: unknown): boolean => v === undefined || typeof v === 'string';

/**
 * Reads one run event from an SSE data line. Returns null for anything that
 * is not a well-formed event of a known kind: a newer backend may add kinds,
 * and one odd event must not break the rest of the stream.
 */
export function parseRunEvent(data: string): RunEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isObject(v) || !str(v.runId) || typeof v.seq !== 'number' || typeof v.ts !== 'number') return null;
  switch (v.kind) {
    case 'status':
      return str(v.phase) ? (v as unknown as RunEvent) : null;
    case 'text-delta':
      return optStr(v.text) && optStr(v.channel) ? (v as unknown as RunEvent) : null;
    case 'tool-call':
      return str(v.toolCallId) && str(v.name) ? (v as unknown as RunEvent) : null;
    case 'tool-result':
      return str(v.toolCallId) && optStr(v.output) ? (v as unknown as RunEvent) : null;
    case 'cost':
      return v.costUsd === undefined || typeof v.costUsd === 'number' ? (v as unknown as RunEvent) : null;
    case 'error':
      return optStr(v.message) ? ({ ...v, message: v.message ?? '' } as unknown as RunEvent) : null;
    case 'done':
      return str(v.reason) ? (v as unknown as RunEvent) : null;
    default:
      return null;
  }
}
