// Pure logic of the approvals UI: how a request reads on a card, how long it
// stays answerable, and how the pending list follows the live events.

import type { ApprovalEvent, ApprovalRequest } from '../../lib/api/approvalTypes';

/** How long the backend keeps a request answerable (seed 004: 10 minutes). */
export const APPROVAL_TTL_MS = 10 * 60 * 1000;

/**
 * "9m 05s left", "42s left", or "expired" once the deadline has passed.
 * Whole seconds round down, so a clock read up to a tick ago never shows
 * more than the 10 minutes a request gets.
 */
export function timeLeft(expiresAt: number, now: number): string {
  const ms = expiresAt - now;
  if (!Number.isFinite(ms) || ms <= 0) return 'expired';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s left`;
  const m = Math.floor(s / 60);
  return `${m}m ${String(s % 60).padStart(2, '0')}s left`;
}

/** True while a request can still be answered by the clock (the backend has the last word). */
export function answerable(r: ApprovalRequest, now: number): boolean {
  return r.status === 'pending' && r.expiresAt > now;
}

/**
 * Makes control characters visible: what a person reads must be what runs,
 * so an escape sequence or a NUL is shown as \xNN / \u{…} rather than
 * interpreted or dropped. Newlines and tabs stay. (HTML escaping is Svelte's:
 * the views only ever render this as text.)
 */
export function visible(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

export type RiskLevel = 'low' | 'medium' | 'high' | 'unknown';

export function riskLevel(risk: string | undefined): RiskLevel {
  const r = (risk ?? '').trim().toLowerCase();
  return r === 'low' || r === 'medium' || r === 'high' ? r : 'unknown';
}

/** A request as a card shows it. Every string is already made visible. */
export interface ApprovalDisplay {
  id: string;
  heading: string;
  /** "Command", "Tool" or "Phone". */
  kindLabel: string;
  /** The command line (kind command) or the tool's name (kind tool); "" for a phone. */
  program: string;
  args: string;
  folder: string;
  agentId: string;
  taskId: string;
  /** #/board/<task>, or "" without a task. */
  taskHref: string;
  runId: string;
  runHref: string;
  /** The agent's "why"; "" when it gave none. */
  reason: string;
  risk: RiskLevel;
}

export function toDisplay(r: ApprovalRequest): ApprovalDisplay {
  const command = r.kind === 'command';
  const device = r.kind === 'device';
  const program = device ? '' : visible((command ? r.command : r.tool) ?? '');
  const title = visible((r.title ?? '').trim());
  const taskId = r.taskId ?? '';
  const runId = r.runId ?? '';
  return {
    id: r.id,
    heading: title || (device ? 'A phone paired or removed' : command ? 'Run a command' : program ? `Use ${program}` : 'Use a tool'),
    kindLabel: device ? 'Phone' : command ? 'Command' : 'Tool',
    program,
    args: visible(r.args ?? ''),
    folder: visible(r.folder ?? ''),
    agentId: r.agentId ?? '',
    taskId,
    taskHref: taskId ? `#/board/${encodeURIComponent(taskId)}` : '',
    runId,
    runHref: runId ? `#/runs/${encodeURIComponent(runId)}` : '',
    reason: visible((r.reason ?? '').trim()),
    risk: riskLevel(r.risk),
  };
}

/** The note of a request OpenClaw withdrew because it was answered in OpenClaw's own UI first. */
export const WITHDRAWN_NOTE = 'withdrawn: the caller stopped waiting';

/** True for a request answered in OpenClaw (ours then expired, withdrawn). */
export function answeredInOpenClaw(r: Pick<ApprovalRequest, 'status' | 'note'>): boolean {
  return r.status === 'expired' && (r.note ?? '').trim() === WITHDRAWN_NOTE;
}

/** Oldest first: the one that expires soonest leads. */
function byCreated(a: ApprovalRequest, b: ApprovalRequest): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The pending list from a fresh read: only pending rows, oldest first. */
export function pendingList(rs: readonly ApprovalRequest[]): ApprovalRequest[] {
  return rs.filter((r) => r.status === 'pending').sort(byCreated);
}

/**
 * The pending list after one live event: a new pending request joins (or
 * replaces its older copy); anything answered, denied or expired leaves.
 */
export function applyEvent(list: readonly ApprovalRequest[], ev: ApprovalEvent): ApprovalRequest[] {
  const rest = list.filter((r) => r.id !== ev.approval.id);
  if (ev.kind === 'requested' && ev.approval.status === 'pending') return [...rest, ev.approval].sort(byCreated);
  return rest;
}

/**
 * The pending requests of one run. A clawboo-tools request knows its agent
 * but not its run (the tools server serves the agent, not one run): with
 * `agentId` (pass it only while the run is live) such a request of the
 * run's agent is shown too, so a chat waiting on a tool shows the question.
 */
export function forRun(list: readonly ApprovalRequest[], runId: string, agentId?: string | null): ApprovalRequest[] {
  if (!runId) return [];
  return list.filter((r) => r.runId === runId || (!r.runId && !!agentId && r.agentId === agentId));
}

/**
 * The requests a team's room shows inline: those of the team, or of one of
 * its members' runs (a member's request may carry only its agent and run).
 */
export function forTeam(list: readonly ApprovalRequest[], teamId: string, agentIds: readonly string[]): ApprovalRequest[] {
  return list.filter((r) => (r.teamId ? r.teamId === teamId : !!r.agentId && agentIds.includes(r.agentId)));
}
