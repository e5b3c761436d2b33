// The one typed client for the Clawboo API. Every URL is relative
// ("/api/..."): in the desktop the page lives at wails://wails/ and the API is
// served in-process through that same origin, where an absolute
// http://127.0.0.1 URL would fail. The same code runs in a browser against
// `clawboo serve`.

import {
  decodeConnectResult,
  decodeHealth,
  decodeHealthCheck,
  decodeRun,
  decodeRunsPage,
  decodeRuntimeEntry,
  decodeRuntimes,
  decodeStartRun,
  parseInstallEvent,
} from './decode';
import { ApiError, errorFromResponse, UNREACHABLE, type FetchFn } from './errors';
import { postSse } from '../sse/stream';
import type {
  ConnectRequest,
  ConnectResult,
  Health,
  HealthCheckResult,
  InstallEvent,
  Run,
  RunsPage,
  RuntimeEntry,
  RuntimesResponse,
  StartRunRequest,
} from './types';

export { ApiError, describeError, errorFromResponse, isAbort, type FetchFn } from './errors';

const rt = (id: string): string => `/api/runtimes/${encodeURIComponent(id)}`;

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
      throw new ApiError(0, UNREACHABLE);
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
    return decodeStartRun(await this.request('POST', `${rt(runtimeId)}/run`, { ...req, wait: false }));
  }

  /**
   * Installs a runtime's CLI, calling onEvent for each event of the install
   * stream, and settles when the stream ends. Aborting the signal closes
   * the request, which stops the installer. A refusal (built in, unknown,
   * already installing) rejects with the backend's words.
   */
  async install(id: string, onEvent: (ev: InstallEvent) => void, signal?: AbortSignal): Promise<void> {
    const opts: Parameters<typeof postSse>[0] = {
      url: `${rt(id)}/install`,
      body: {},
      fetch: this.fetchFn,
      onMessage: (m) => {
        const ev = parseInstallEvent(m.data);
        if (ev) onEvent(ev);
      },
    };
    if (signal) opts.signal = signal;
    await postSse(opts);
  }

  /** Stores a key (or, for a keyless provider, nothing) and answers the new state. */
  async connect(id: string, req: ConnectRequest): Promise<ConnectResult> {
    return decodeConnectResult(await this.request('POST', `${rt(id)}/connect`, req));
  }

  async disconnect(id: string): Promise<ConnectResult> {
    return decodeConnectResult(await this.request('POST', `${rt(id)}/disconnect`, {}));
  }

  /**
   * Asks the provider whether a key works, without storing it (native
   * runtime only). Without apiKey the stored key is checked. A bad key is
   * {ok: false, error}, not a rejection.
   */
  async healthcheck(provider: string, apiKey?: string): Promise<HealthCheckResult> {
    const body: ConnectRequest = apiKey === undefined ? { provider } : { provider, apiKey };
    return decodeHealthCheck(await this.request('POST', `${rt('clawboo-native')}/healthcheck`, body));
  }

  /** Re-probes a runtime (its binary, Codex's login) and answers its fresh entry. */
  async recheck(id: string): Promise<RuntimeEntry> {
    return decodeRuntimeEntry(await this.request('POST', `${rt(id)}/recheck`, {}));
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
