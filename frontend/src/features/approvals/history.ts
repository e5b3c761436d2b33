// The approvals history (answered requests) as the Approvals page shows it:
// the answer in words, where it was given, and how the list follows the
// live events. Pure logic, unit-tested.

import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import { answeredInOpenClaw } from './approvalView';

/** "Allowed", "Allowed for the session", "Denied", "Expired" or "Answered in OpenClaw". */
export function answerWords(r: Pick<ApprovalRequest, 'status' | 'note' | 'scope'>): string {
  if (answeredInOpenClaw(r)) return 'Answered in OpenClaw';
  switch (r.status) {
    case 'approved':
      return r.scope === 'session' ? 'Allowed for the session' : 'Allowed';
    case 'denied':
      return 'Denied';
    case 'expired':
      return 'Expired';
    default:
      return 'Waiting';
  }
}

const WHERE: Record<string, string> = {
  page: 'by you on the Approvals page',
  popup: 'by you in a popup',
  tray: 'by you from the tray',
  api: 'through the API',
};

/** Who answered and where: "by you in a popup", "in OpenClaw", "nobody answered in time". */
export function whereWords(r: Pick<ApprovalRequest, 'status' | 'note' | 'resolvedBy'>): string {
  if (answeredInOpenClaw(r)) return 'in OpenClaw';
  if (r.status === 'expired') return 'nobody answered in time';
  const by = (r.resolvedBy ?? '').trim();
  return WHERE[by] ?? (by ? `by ${by}` : '');
}

/** The note worth showing: not the expiry's own words (said by whereWords). */
export function noteWords(r: Pick<ApprovalRequest, 'status' | 'note'>): string {
  const n = (r.note ?? '').trim();
  if (r.status === 'expired') return '';
  return n;
}

function answeredAt(r: ApprovalRequest): number {
  return r.resolvedAt || r.expiresAt;
}

/** The history after a request left the queue: it joins at the top (replacing an older copy). */
export function addAnswered(list: readonly ApprovalRequest[], r: ApprovalRequest): ApprovalRequest[] {
  if (r.status === 'pending') return list as ApprovalRequest[];
  return [r, ...list.filter((x) => x.id !== r.id)].sort((a, b) => answeredAt(b) - answeredAt(a) || (a.id < b.id ? 1 : -1));
}

/** Appends an older page, dropping rows already listed. */
export function appendPage(list: readonly ApprovalRequest[], page: readonly ApprovalRequest[]): ApprovalRequest[] {
  const ids = new Set(list.map((r) => r.id));
  return [...list, ...page.filter((r) => !ids.has(r.id))];
}
