// Line comments on a task's diff and sending them back to the agent
// (backend/api/linecomments.go), reached as `api.lineComments`. Kept apart
// from client.ts so that file stays small.

import { DecodeError, isObject } from './decode';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

/** Which numbering a comment's line is in: the new file's (added and context lines) or the old file's (removed lines). */
export type LineSide = 'new' | 'old';

export interface LineComment {
  id: string;
  taskId: string;
  /** A file of the task's diff (the backend refuses any other). */
  path: string;
  line: number;
  side: LineSide;
  body: string;
  createdAt: number;
  /** The run that carried it back to the agent; null while unsent. */
  sentRunId: string | null;
  sentAt: number | null;
}

export interface NewLineComment {
  path: string;
  line: number;
  side?: LineSide;
  body: string;
}

/** The largest comment the backend takes, in bytes of UTF-8. */
export const MAX_LINE_COMMENT_BYTES = 8 << 10;

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeLineComment(v: unknown): LineComment {
  need(isObject(v) && typeof v.id === 'string' && v.id !== '' && typeof v.taskId === 'string', 'line comment without ids');
  need(typeof v.path === 'string' && typeof v.line === 'number' && (v.side === 'new' || v.side === 'old'), `line comment ${v.id} has no place`);
  need(typeof v.body === 'string', `line comment ${v.id} has no body`);
  return { ...(v as unknown as LineComment), sentRunId: typeof v.sentRunId === 'string' ? v.sentRunId : null };
}

export function decodeLineComments(v: unknown): LineComment[] {
  need(isObject(v) && Array.isArray(v.comments), 'line comments is not {comments}');
  return v.comments.map(decodeLineComment);
}

const url = (taskId: string): string => `/api/board/${encodeURIComponent(taskId)}`;

export class LineCommentsApi {
  constructor(private readonly request: Request) {}

  /** A task's line comments, sent and unsent, oldest first. */
  async list(taskId: string, signal?: AbortSignal): Promise<LineComment[]> {
    return decodeLineComments(await this.request('GET', `${url(taskId)}/line-comments`, undefined, signal));
  }

  /** Adds one; 400 path_not_in_diff for a file the diff does not touch, invalid for line 0 or an empty or huge body. */
  async add(taskId: string, c: NewLineComment): Promise<LineComment> {
    const v = await this.request('POST', `${url(taskId)}/line-comments`, c);
    need(isObject(v), 'line comment answer is not an object');
    return decodeLineComment(v.comment);
  }

  /** Removes an unsent one (409 already_sent for a sent one). */
  async remove(taskId: string, id: string): Promise<void> {
    await this.request('DELETE', `${url(taskId)}/line-comments/${encodeURIComponent(id)}`);
  }

  /**
   * Starts a run on the task's worktree and session with the person's
   * general request (message) and the unsent comments as its message;
   * answers the run's id.
   */
  async sendBack(taskId: string, message = ''): Promise<{ runId: string; sent: number }> {
    const v = await this.request('POST', `${url(taskId)}/send-back`, message.trim() ? { message: message.trim() } : {});
    need(isObject(v) && typeof v.runId === 'string' && v.runId !== '', 'send-back answer has no runId');
    return { runId: v.runId, sent: typeof v.sent === 'number' ? v.sent : 0 };
  }
}
