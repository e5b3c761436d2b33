// The approvals routes of the API client (backend/api/approvals.go), reached
// as `api.approvals`.

import { decodeApprovalAnswer, decodeApprovalPage, decodeApprovals } from './approvalDecode';
import type { ApprovalDecision, ApprovalPage, ApprovalRequest } from './approvalTypes';

type Request = (method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

const approvalUrl = (id: string): string => `/api/approvals/${encodeURIComponent(id)}`;

export class ApprovalsApi {
  constructor(private readonly request: Request) {}

  /** The requests still waiting for an answer. */
  async pending(signal?: AbortSignal): Promise<ApprovalRequest[]> {
    return decodeApprovals(await this.request('GET', '/api/approvals', undefined, signal));
  }

  /** The answered requests (the history), newest answer first; `before` is the previous page's nextCursor. */
  async answered(before?: string, signal?: AbortSignal): Promise<ApprovalPage> {
    const q = before ? `&before=${encodeURIComponent(before)}` : '';
    return decodeApprovalPage(await this.request('GET', `/api/approvals?status=answered${q}`, undefined, signal));
  }

  async get(id: string, signal?: AbortSignal): Promise<ApprovalRequest> {
    return decodeApprovalAnswer(await this.request('GET', approvalUrl(id), undefined, signal));
  }

  /** Answers a request; one already answered or expired rejects with 409. */
  async resolve(id: string, decision: ApprovalDecision, note?: string): Promise<ApprovalRequest> {
    const body: { decision: ApprovalDecision; by: string; note?: string } = { decision, by: 'page' };
    if (note) body.note = note;
    return decodeApprovalAnswer(await this.request('POST', `${approvalUrl(id)}/resolve`, body));
  }
}
