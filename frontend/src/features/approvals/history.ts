// The approvals history (answered requests) as the Approvals page shows it:
// the answer in words, where it was given, and how the list follows the
// live events. A phone paired or removed (kind device) is a line of it too,
// a thing done rather than an answer. Pure logic, unit-tested.

import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import { answeredInOpenClaw } from './approvalView';

/** A phone paired or removed: its heading (the title) says which. */
export function isDeviceEntry(r: Pick<ApprovalRequest, 'kind'>): boolean {
  return r.kind === 'device';
}

/** "Allowed", "Allowed for the session", "Denied", "Expired", "Answered in OpenClaw", or "Phone" (kind device). */
export function answerWords(r: Pick<ApprovalRequest, 'kind' | 'status' | 'note' | 'scope'>): string {
  if (isDeviceEntry(r)) return 'Phone';
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

/** Who did a phone's pairing or removal (the pairing phone itself, by name). */
const DEVICE_WHO: Record<string, string> = {
  page: 'by you',
  api: 'through the API',
};

/**
 * Who answered and where: "by you in a popup", "in OpenClaw", "nobody
 * answered in time"; for a phone, who did it and from where: "by phone:
 * Pixel 8, from 192.168.1.20", "by you".
 */
export function whereWords(r: Pick<ApprovalRequest, 'kind' | 'status' | 'note' | 'resolvedBy'>): string {
  const by = (r.resolvedBy ?? '').trim();
  if (isDeviceEntry(r)) {
    const who = DEVICE_WHO[by] ?? (by ? `by ${by}` : '');
    return [who, (r.note ?? '').trim()].filter(Boolean).join(', ');
  }
  if (answeredInOpenClaw(r)) return 'in OpenClaw';
  if (r.status === 'expired') return 'nobody answered in time';
  return WHERE[by] ?? (by ? `by ${by}` : '');
}

/** The note worth showing: not the expiry's own words nor a phone's address (said by whereWords). */
export function noteWords(r: Pick<ApprovalRequest, 'kind' | 'status' | 'note'>): string {
  const n = (r.note ?? '').trim();
  if (r.status === 'expired' || isDeviceEntry(r)) return '';
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
