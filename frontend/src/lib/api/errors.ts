// Errors the API layer hands to views, in words a person can read. Kept apart
// from client.ts so the streaming code (lib/sse) can use them without an
// import cycle: the client also uses the streaming code, for installs.

import { isObject } from './decode';

/** An error the user can read: the backend's own words, or what went wrong reaching it. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status, or 0 when the backend could not be reached. */
  readonly status: number;
  /**
   * The backend's stable code for a refusal ("illegal_transition",
   * "verification_required", "budget_paused", ...), or "" when it sent none.
   * Views branch on this, never on the words.
   */
  readonly reason: string;
  /**
   * The refusal's whole JSON body (some carry more than the words: a team
   * chat's committed post), or null. Not enumerable: two errors with the
   * same status, words and reason still compare equal.
   */
  declare readonly body: unknown;
  constructor(status: number, message: string, reason = '', body: unknown = null) {
    super(message);
    this.status = status;
    this.reason = reason;
    Object.defineProperty(this, 'body', { value: body, enumerable: false });
  }
}

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

/** The words for a backend that does not answer at all. */
export const UNREACHABLE = 'cannot reach the Clawboo backend';

/** Turns a non-2xx response into an ApiError carrying the backend's {"error": "...", "reason"?: "..."}. */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  let message = '';
  let reason = '';
  let body: unknown = null;
  try {
    body = await res.json();
    if (isObject(body) && typeof body.error === 'string') message = body.error;
    if (isObject(body) && typeof body.reason === 'string') reason = body.reason;
  } catch {
    // Not JSON (a proxy's page, say): fall back to the status line.
  }
  if (!message) message = `the backend answered ${res.status} ${res.statusText}`.trim();
  return new ApiError(res.status, message, reason, body);
}

/** HTTP 507: the backend could not save something because its disk is full. */
export const INSUFFICIENT_STORAGE = 507;

/** True for words that say the disk Clawboo keeps its data on is full. */
export function isDiskFull(text: string): boolean {
  return /disk is full/i.test(text);
}

/**
 * "Disk full: …" for a message saying the disk is full (a 507 answer, a run's
 * recorded error), so it reads the same everywhere; other messages unchanged.
 */
export function diskFullText(message: string): string {
  if (!isDiskFull(message)) return message;
  const rest = message.replace(/^(the )?(database or )?disk is full[:;,.]?\s*/i, '');
  return rest ? `Disk full: ${rest}` : 'Disk full';
}

/** Words for a failure that may not be an ApiError (a network error, a decode error). */
export function describeError(err: unknown): string {
  if (err instanceof ApiError && err.status === INSUFFICIENT_STORAGE && !isDiskFull(err.message)) {
    return err.message ? `Disk full: ${err.message}` : 'Disk full';
  }
  if (err instanceof ApiError) return diskFullText(err.message);
  if (err instanceof DOMException && err.name === 'AbortError') return 'cancelled';
  if (err instanceof TypeError) return UNREACHABLE;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** True for the error an aborted fetch or stream read rejects with. */
export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}
