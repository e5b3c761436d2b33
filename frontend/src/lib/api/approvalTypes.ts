// The approvals queue's wire types (backend/approval, backend/api/approvals.go).
// Times are Unix milliseconds.

/** "device" is not a question: a phone paired or removed, written into the
 * history already answered (status "approved"), never pending. */
export type ApprovalKind = 'tool' | 'command' | 'device';
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';
/** What the page sends; the backend also takes "allow" as a synonym of "approve".
 * "allow-always" only where the request offers it (`always`). */
export type ApprovalDecision = 'approve' | 'allow-always' | 'deny';

/** One question put to a person: a tool call on clawboo-tools, or a native run's command;
 * or a history line of a phone paired or removed (kind device). */
export interface ApprovalRequest {
  id: string;
  kind: ApprovalKind;
  title: string;
  /** The tool's name (kind tool). */
  tool?: string;
  /** The command line as a person should read it (kind command). */
  command?: string;
  /** The arguments, already scrubbed. */
  args?: string;
  folder?: string;
  agentId?: string;
  teamId?: string;
  taskId?: string;
  runId?: string;
  /** The agent's own account of why it needs this. */
  reason?: string;
  risk?: string;
  /** The agent offers "allow always for this session" (an ACP agent's option). */
  always?: boolean;
  status: ApprovalStatus;
  createdAt: number;
  expiresAt: number;
  resolvedAt?: number;
  resolvedBy?: string;
  note?: string;
  /** "session" when a person allowed it for the rest of the agent's session. */
  scope?: string;
}

/** A page of the history (GET /api/approvals?status=answered). */
export interface ApprovalPage {
  approvals: ApprovalRequest[];
  nextCursor: string | null;
}

/** An "approval" event of GET /api/events. */
export interface ApprovalEvent {
  kind: 'requested' | 'resolved';
  approval: ApprovalRequest;
}
