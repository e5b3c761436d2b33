// Shape checks for the approvals API and its live events.

import type { ApprovalEvent, ApprovalPage, ApprovalRequest } from './approvalTypes';
import { DecodeError, isObject } from './decode';

const STATUSES: ReadonlySet<string> = new Set(['pending', 'approved', 'denied', 'expired']);

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeApproval(v: unknown): ApprovalRequest {
  need(isObject(v), 'approval is not an object');
  need(typeof v.id === 'string' && v.id !== '', 'approval without an id');
  need(typeof v.status === 'string' && STATUSES.has(v.status), `approval ${String(v.id)} has an unknown status`);
  need(typeof v.createdAt === 'number', `approval ${v.id} has no createdAt`);
  need(typeof v.expiresAt === 'number', `approval ${v.id} has no expiresAt`);
  return v as unknown as ApprovalRequest;
}

export function decodeApprovals(v: unknown): ApprovalRequest[] {
  need(isObject(v) && Array.isArray(v.approvals), 'approvals list is not {approvals: [...]}');
  return v.approvals.map(decodeApproval);
}

export function decodeApprovalPage(v: unknown): ApprovalPage {
  const approvals = decodeApprovals(v);
  const next = (v as { nextCursor?: unknown }).nextCursor;
  need(next === null || next === undefined || typeof next === 'string', 'nextCursor is not a string');
  return { approvals, nextCursor: next ?? null };
}

export function decodeApprovalAnswer(v: unknown): ApprovalRequest {
  need(isObject(v), 'approval answer is not an object');
  return decodeApproval(v.approval);
}

export function decodeApprovalEvent(v: unknown): ApprovalEvent {
  need(isObject(v) && (v.kind === 'requested' || v.kind === 'resolved'), 'approval event has an unknown kind');
  return { kind: v.kind, approval: decodeApproval(v.approval) };
}
