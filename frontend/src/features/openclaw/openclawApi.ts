// The OpenClaw routes (backend/api/openclaw.go): the Gateway connection's
// settings (the token only ever masked), the card's status (JSON or a
// stream), the MCP registration and the activity feed of OpenClaw runs
// Clawboo did not start. Kept beside the feature, over the same error type
// and streaming client as lib/api, so the shared client stays untouched.

import { ApiError, errorFromResponse, UNREACHABLE, type FetchFn } from '../../lib/api/errors';
import { DecodeError, isObject } from '../../lib/api/decode';
import { openSseStream, type SseStream, type StreamState } from '../../lib/sse/stream';

export type UrlSource = 'env' | 'settings' | '';
export type TokenSource = 'env' | 'vault' | 'openclaw' | '';

export interface OpenClawSettings {
  url: string;
  urlSource: UrlSource;
  tokenSet: boolean;
  /** "••••" and the token's last 4 characters; absent when no token is set. */
  tokenMasked?: string;
  tokenSource: TokenSource;
}

export type ConnectionStatus = 'unconfigured' | 'connecting' | 'starting' | 'connected' | 'error' | 'closed';

export interface OpenClawConnection {
  status: ConnectionStatus | string;
  url?: string;
  error?: string;
  serverVersion?: string;
  protocol?: number;
  deviceId?: string;
  connectedAt?: number;
  attempts: number;
  /** Unix ms of the next attempt; 0 or absent when none is planned. */
  nextRetryAt?: number;
}

export interface OpenClawAgent {
  id: string;
  workspace?: string;
  model?: string;
}

export interface OpenClawStatus {
  connection: OpenClawConnection;
  settings: OpenClawSettings;
  health: { ok: boolean; message?: string };
  defaultAgent?: string;
  agents: OpenClawAgent[];
  liveRuns: number;
  pendingApprovals: number;
  mcpServers: Record<string, string>;
  mcpRegistered: boolean;
}

/** One tool event of an OpenClaw run Clawboo did not start. */
export interface OpenClawActivity {
  ts: number;
  sessionKey: string;
  agent: string;
  runId?: string;
  event: {
    kind: 'tool-call' | 'tool-result' | string;
    toolCallId: string;
    name?: string;
    input?: unknown;
    output?: string;
    isError?: boolean;
  };
}

export interface McpRegistration {
  servers: string[];
  hash?: string;
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeSettings(v: unknown): OpenClawSettings {
  need(isObject(v) && typeof v.url === 'string' && typeof v.tokenSet === 'boolean', 'OpenClaw settings');
  return v as unknown as OpenClawSettings;
}

export function decodeStatus(v: unknown): OpenClawStatus {
  need(isObject(v) && isObject(v.connection) && typeof v.connection.status === 'string', 'OpenClaw status');
  const s = v as unknown as OpenClawStatus;
  return {
    ...s,
    connection: { ...s.connection, attempts: Number(s.connection.attempts) || 0 },
    settings: decodeSettings(s.settings),
    health: isObject(s.health) ? s.health : { ok: false },
    agents: Array.isArray(s.agents) ? s.agents : [],
    liveRuns: Number(s.liveRuns) || 0,
    pendingApprovals: Number(s.pendingApprovals) || 0,
    mcpServers: isObject(s.mcpServers) ? s.mcpServers : {},
    mcpRegistered: s.mcpRegistered === true,
  };
}

export function decodeActivity(v: unknown): OpenClawActivity {
  need(isObject(v) && typeof v.sessionKey === 'string' && isObject(v.event), 'OpenClaw activity entry');
  need(typeof v.event.kind === 'string', 'OpenClaw activity event without a kind');
  return v as unknown as OpenClawActivity;
}

export function decodeActivityList(v: unknown): OpenClawActivity[] {
  const list = isObject(v) ? v.activity : v;
  if (list === null || list === undefined) return [];
  need(Array.isArray(list), 'OpenClaw activity is not a list');
  return list.map(decodeActivity);
}

export interface StreamHandlers<T> {
  onOpen?: () => void;
  onState?: (s: StreamState) => void;
  /** A refusal that will not change on retry (503: no OpenClaw on this server). */
  onFatal: (err: unknown) => void;
  onData: (v: T) => void;
}

export class OpenClawApi {
  private readonly fetchFn: FetchFn;

  constructor(fetchFn?: FetchFn) {
    this.fetchFn = fetchFn ?? ((input, init) => globalThis.fetch(input, init));
  }

  private async request(method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const init: RequestInit = { method, headers, cache: 'no-store' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(path, init);
    } catch {
      throw new ApiError(0, UNREACHABLE);
    }
    if (!res.ok) throw await errorFromResponse(res);
    try {
      return (await res.json()) as unknown;
    } catch {
      throw new ApiError(res.status, `the backend sent an unreadable answer to ${method} ${path}`);
    }
  }

  async settings(): Promise<OpenClawSettings> {
    return decodeSettings(await this.request('GET', '/api/openclaw/settings'));
  }

  /** A field left out is unchanged; "" clears it. A refused value rejects with the 400's words. */
  async saveSettings(u: { url?: string; token?: string }): Promise<OpenClawSettings> {
    return decodeSettings(await this.request('PUT', '/api/openclaw/settings', u));
  }

  async status(): Promise<OpenClawStatus> {
    return decodeStatus(await this.request('GET', '/api/openclaw/status'));
  }

  /** Writes Clawboo's MCP servers into the Gateway config; 502 when the Gateway refused or is away. */
  async registerMcp(): Promise<McpRegistration> {
    const v = await this.request('POST', '/api/openclaw/mcp');
    need(isObject(v) && Array.isArray(v.servers), 'MCP registration answer');
    return v as unknown as McpRegistration;
  }

  async activity(): Promise<OpenClawActivity[]> {
    return decodeActivityList(await this.request('GET', '/api/openclaw/activity'));
  }

  /** The card as a stream: a status now and after every connection change. */
  streamStatus(h: StreamHandlers<OpenClawStatus>): SseStream {
    return this.stream('/api/openclaw/status', h, (m) => (m.event === 'status' ? decodeStatus(JSON.parse(m.data)) : null));
  }

  /**
   * The activity as a stream: "recent" (the whole list, oldest first; it
   * replaces what was shown, also after a reconnect) then one entry per
   * "activity" event.
   */
  streamActivity(h: StreamHandlers<{ recent: OpenClawActivity[] } | { entry: OpenClawActivity }>): SseStream {
    return this.stream('/api/openclaw/activity', h, (m) => {
      if (m.event === 'recent') return { recent: decodeActivityList(JSON.parse(m.data)) };
      if (m.event === 'activity') return { entry: decodeActivity(JSON.parse(m.data)) };
      return null;
    });
  }

  private stream<T>(url: string, h: StreamHandlers<T>, decode: (m: { event: string; data: string }) => T | null): SseStream {
    return openSseStream({
      url,
      fetch: this.fetchFn,
      maxDelayMs: 10_000,
      onOpen: () => h.onOpen?.(),
      onState: (s) => h.onState?.(s),
      onFatal: h.onFatal,
      onMessage: (m) => {
        let v: T | null;
        try {
          v = decode(m);
        } catch {
          // One malformed event must not end the stream; the next one corrects it.
          return;
        }
        if (v !== null) h.onData(v);
      },
    });
  }
}

export const openclawApi = new OpenClawApi();
