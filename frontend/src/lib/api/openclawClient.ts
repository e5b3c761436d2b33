// The OpenClaw routes of the API client (backend/api/openclaw.go), reached
// as `api.openclaw`: the Gateway connection's settings (the token only ever
// masked), the card's status (JSON or a stream), the MCP registration and
// the activity feed of OpenClaw runs Clawboo did not start. JSON goes through
// ApiClient's request, so errors, an abort and decoding behave as on every
// other route; the streams use the client's fetch through lib/sse.

import { openSseStream, type SseStream, type StreamState } from '../sse/stream';
import type { FetchFn } from './errors';
import {
  decodeMcpRegistration,
  decodeOpenClawActivity,
  decodeOpenClawActivityList,
  decodeOpenClawSettings,
  decodeOpenClawStatus,
} from './openclawDecode';
import type { McpRegistration, OpenClawActivity, OpenClawSettings, OpenClawStatus } from './openclawTypes';

type Request = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

const SETTINGS_URL = '/api/openclaw/settings';
const STATUS_URL = '/api/openclaw/status';
const ACTIVITY_URL = '/api/openclaw/activity';

export interface StreamHandlers<T> {
  onOpen?: () => void;
  onState?: (s: StreamState) => void;
  /** A refusal that will not change on retry (503: no OpenClaw on this server). */
  onFatal: (err: unknown) => void;
  onData: (v: T) => void;
}

export class OpenClawApi {
  constructor(
    private readonly request: Request,
    private readonly fetchFn: FetchFn,
  ) {}

  async settings(signal?: AbortSignal): Promise<OpenClawSettings> {
    return decodeOpenClawSettings(await this.request('GET', SETTINGS_URL, undefined, signal));
  }

  /** A field left out is unchanged; "" clears it. A refused value rejects with the 400's words. */
  async saveSettings(u: { url?: string; token?: string }): Promise<OpenClawSettings> {
    return decodeOpenClawSettings(await this.request('PUT', SETTINGS_URL, u));
  }

  async status(signal?: AbortSignal): Promise<OpenClawStatus> {
    return decodeOpenClawStatus(await this.request('GET', STATUS_URL, undefined, signal));
  }

  /** Writes Clawboo's MCP servers into the Gateway config; 502 when the Gateway refused or is away. */
  async registerMcp(): Promise<McpRegistration> {
    return decodeMcpRegistration(await this.request('POST', '/api/openclaw/mcp'));
  }

  async activity(signal?: AbortSignal): Promise<OpenClawActivity[]> {
    return decodeOpenClawActivityList(await this.request('GET', ACTIVITY_URL, undefined, signal));
  }

  /** The card as a stream: a status now and after every connection change. */
  streamStatus(h: StreamHandlers<OpenClawStatus>): SseStream {
    return this.stream(STATUS_URL, h, (m) => (m.event === 'status' ? decodeOpenClawStatus(JSON.parse(m.data)) : null));
  }

  /**
   * The activity as a stream: "recent" (the whole list, oldest first; it
   * replaces what was shown, also after a reconnect) then one entry per
   * "activity" event.
   */
  streamActivity(h: StreamHandlers<{ recent: OpenClawActivity[] } | { entry: OpenClawActivity }>): SseStream {
    return this.stream(ACTIVITY_URL, h, (m) => {
      if (m.event === 'recent') return { recent: decodeOpenClawActivityList(JSON.parse(m.data)) };
      if (m.event === 'activity') return { entry: decodeOpenClawActivity(JSON.parse(m.data)) };
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
