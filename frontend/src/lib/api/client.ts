// The one typed client for the Clawboo API. Every URL is relative
// ("/api/..."): in the desktop the page lives at wails://wails/ and the API is
// served in-process through that same origin, where an absolute
// http://127.0.0.1 URL would fail. The same code runs in a browser against
// `clawboo serve`.

import {
  decodeHealth,
  decodeRun,
  decodeRunsPage,
  decodeRuntimes,
  decodeStartRun,
  isObject,
} from './decode';
import type { Health, Run, RunsPage, RuntimesResponse, StartRunRequest } from './types';

/** An error the user can read: the backend's own words, or what went wrong reaching it. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** HTTP status, or 0 when the backend could not be reached. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

/** Turns a non-2xx response into an ApiError carrying the backend's {"error": "..."} text. */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  let message = '';
  try {
    const body: unknown = await res.json();
    if (isObject(body) && typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (a proxy's page, say): fall back to the status line.
  }
  if (!message) message = `the backend answered ${res.status} ${res.statusText}`.trim();
  return new ApiError(res.status, message);
}

/** Words for a failure that may not be an ApiError (a network error, a decode error). */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof DOMException && err.name === 'AbortError') return 'cancelled';
  if (err instanceof TypeError) return 'cannot reach the Clawboo backend';
  if (err instanceof Error) return err.message;
  return String(err);
}

export class ApiClient {
  private readonly fetchFn: FetchFn;

  constructor(fetchFn?: FetchFn) {
    // Bind lazily so tests can swap globalThis.fetch and so `this` is right.
    this.fetchFn = fetchFn ?? ((input, init) => globalThis.fetch(input, init));
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const init: RequestInit = { method, headers: { Accept: 'application/json' }, cache: 'no-store' };
    if (signal) init.signal = signal;
    if (body !== undefined) {
      init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(path, init);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, 'cannot reach the Clawboo backend');
    }
    if (!res.ok) throw await errorFromResponse(res);
    try {
      return (await res.json()) as unknown;
    } catch {
      throw new ApiError(res.status, `the backend sent an unreadable answer to ${method} ${path}`);
    }
  }

  async health(signal?: AbortSignal): Promise<Health> {
    return decodeHealth(await this.request('GET', '/api/health', undefined, signal));
  }

  async runtimes(signal?: AbortSignal): Promise<RuntimesResponse> {
    return decodeRuntimes(await this.request('GET', '/api/runtimes', undefined, signal));
  }

  /** Starts a run and returns its id at once; the caller streams its events. */
  async startRun(runtimeId: string, req: StartRunRequest): Promise<{ runId: string }> {
    const path = `/api/runtimes/${encodeURIComponent(runtimeId)}/run`;
    return decodeStartRun(await this.request('POST', path, { ...req, wait: false }));
  }

  async listRuns(opts: { limit?: number; before?: string | null } = {}, signal?: AbortSignal): Promise<RunsPage> {
    const q = new URLSearchParams();
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    if (opts.before) q.set('before', opts.before);
    const qs = q.toString();
    return decodeRunsPage(await this.request('GET', `/api/runs${qs ? `?${qs}` : ''}`, undefined, signal));
  }

  async getRun(id: string, signal?: AbortSignal): Promise<Run> {
    return decodeRun(await this.request('GET', `/api/runs/${encodeURIComponent(id)}`, undefined, signal));
  }

  async abortRun(id: string): Promise<void> {
    await this.request('POST', `/api/runs/${encodeURIComponent(id)}/abort`, {});
  }
}

/** URL of a run's event stream (resume is by the Last-Event-ID header). */
export function runEventsUrl(id: string): string {
  return `/api/runs/${encodeURIComponent(id)}/events`;
}

/** URL of the run lifecycle stream. */
export const LIFECYCLE_URL = '/api/events';

/** The app's shared client. */
export const api = new ApiClient();
