// Light shape checks at the API boundary. JSON arrives as `unknown`; these
// guards check the fields the UI relies on (ids, discriminants, numbers it
// does arithmetic with) before a value is given its wire type, so a backend
// change shows up as a clear error instead of `undefined` deep in a view.
// They do not re-validate every optional field: the Go structs are the
// contract and types.ts mirrors them.

import type {
  ConnectionState,
  ConnectResult,
  Health,
  HealthCheckResult,
  InstallEvent,
  PlanPriority,
  PlanStatus,
  PlanStep,
  Run,
  RunEvent,
  RunsPage,
  RunStatus,
  RuntimeEntry,
  RuntimesResponse,
} from './types';

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

const CONNECTION_STATES: ReadonlySet<string> = new Set<ConnectionState>([
  'not-installed',
  'needs-auth',
  'needs-login',
  'ready',
]);

function isState(v: unknown): v is ConnectionState {
  return typeof v === 'string' && CONNECTION_STATES.has(v);
}

export function decodeRuntimeEntry(r: unknown): RuntimeEntry {
  need(isObject(r) && typeof r.id === 'string', 'runtime entry without an id');
  need(isObject(r.capabilities) && isObject(r.health), `runtime ${r.id} has no capabilities or health`);
  need(isState(r.connectionState), `runtime ${r.id} has an unknown connection state`);
  need(Array.isArray(r.keys) && r.keys.every((k) => isObject(k) && typeof k.id === 'string'), `runtime ${r.id} keys`);
  need(Array.isArray(r.providers), `runtime ${r.id} has no providers list`);
  need(r.acp === undefined || isAcpCommand(r.acp), `runtime ${r.id} has an unreadable ACP command`);
  return r as unknown as RuntimeEntry;
}

function isAcpCommand(v: unknown): boolean {
  return isObject(v) && typeof v.command === 'string' && Array.isArray(v.args) && Array.isArray(v.envVars);
}

export function decodeRuntimes(v: unknown): RuntimesResponse {
  need(isObject(v) && Array.isArray(v.runtimes) && Array.isArray(v.available), 'runtimes is not {runtimes, available}');
  need(isObject(v.vault) && typeof v.vault.backend === 'string', 'runtimes has no vault status');
  v.runtimes.forEach(decodeRuntimeEntry);
  for (const r of v.available) need(isObject(r) && typeof r.id === 'string', 'available runtime');
  return v as unknown as RuntimesResponse;
}

/** The native runtime's state in the answer of PUT /api/settings/ollama-base-url. */
export function decodeConnectionState(v: unknown): ConnectionState {
  need(isState(v), 'settings answer has no connectionState');
  return v;
}

export function decodeConnectResult(v: unknown): ConnectResult {
  need(isObject(v) && isState(v.connectionState), 'connect answer has no connectionState');
  const out: ConnectResult = { ok: v.ok === true, connectionState: v.connectionState };
  if (typeof v.loginCommand === 'string') out.loginCommand = v.loginCommand;
  if (typeof v.warning === 'string' && v.warning !== '') out.warning = v.warning;
  return out;
}

export function decodeHealthCheck(v: unknown): HealthCheckResult {
  need(isObject(v) && typeof v.ok === 'boolean', 'health check answer is not {ok}');
  return typeof v.error === 'string' ? { ok: v.ok, error: v.error } : { ok: v.ok };
}

/**
 * Reads one install event from an SSE data line, or null for anything else.
 * The backend leaves out empty strings (an empty output line has no "line"),
 * so missing text fields read as "".
 */
export function parseInstallEvent(data: string): InstallEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isObject(v)) return null;
  const text = (x: unknown): string => (typeof x === 'string' ? x : '');
  switch (v.type) {
    case 'progress':
      return { type: 'progress', step: text(v.step), message: text(v.message) };
    case 'output':
      return { type: 'output', line: text(v.line), stream: v.stream === 'stderr' ? 'stderr' : 'stdout' };
    case 'error':
      return { type: 'error', code: text(v.code) || 'ERROR', message: text(v.message) };
    case 'complete': {
      const warning = text(v.warning);
      return warning ? { type: 'complete', success: v.success === true, warning } : { type: 'complete', success: v.success === true };
    }
    default:
      return null;
  }
}

/** A started run's id; for a task the quota governor routed to a fallback runtime, where from and why. */
export interface StartedRun {
  runId: string;
  /** The runtime first asked (set only when routed). */
  routedFrom?: string;
  /** The runtime it runs on instead. */
  runtime?: string;
  why?: string;
}

export function decodeStartRun(v: unknown): StartedRun {
  need(isObject(v) && typeof v.runId === 'string' && v.runId !== '', 'start run answer has no runId');
  if (typeof v.routedFrom !== 'string' || v.routedFrom === '') return { runId: v.runId };
  const out: StartedRun = { runId: v.runId, routedFrom: v.routedFrom, why: typeof v.why === 'string' ? v.why : '' };
  if (typeof v.runtime === 'string' && v.runtime) out.runtime = v.runtime;
  return out;
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
    case 'plan':
      return { runId: v.runId, seq: v.seq, ts: v.ts, kind: 'plan', plan: planSteps(v.plan) };
    case 'done':
      return str(v.reason) ? (v as unknown as RunEvent) : null;
    default:
      return null;
  }
}

const PLAN_STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed']);
const PLAN_PRIORITIES: ReadonlySet<string> = new Set(['high', 'medium', 'low']);

/**
 * A plan event's steps. The backend leaves an empty plan out (a cleared
 * plan), and keeps statuses as the agent sent them: a step without text is
 * skipped, an unknown status reads as pending, an unknown priority as none.
 */
function planSteps(v: unknown): PlanStep[] {
  if (!Array.isArray(v)) return [];
  const out: PlanStep[] = [];
  for (const e of v) {
    if (!isObject(e) || !str(e.content) || e.content.trim() === '') continue;
    const status = str(e.status) && PLAN_STATUSES.has(e.status) ? (e.status as PlanStatus) : 'pending';
    const step: PlanStep = { content: e.content, status };
    if (str(e.priority) && PLAN_PRIORITIES.has(e.priority)) step.priority = e.priority as PlanPriority;
    out.push(step);
  }
  return out;
}
