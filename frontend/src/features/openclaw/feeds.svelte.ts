// Live state for the OpenClaw views, each opened by the component that
// shows it and closed when it goes away: the card's status (a stream of
// "status" events; polled as JSON when the stream cannot be had) and the
// activity feed ("recent", then one "activity" event per entry).

import { api as shared, ApiError, describeError } from '../../lib/api/client';
import type { OpenClawApi } from '../../lib/api/openclawClient';
import type { OpenClawActivity, OpenClawSettings, OpenClawStatus } from '../../lib/api/openclawTypes';
import type { SseStream } from '../../lib/sse/stream';
import { appendEntries } from './activity';

const POLL_MS = 5_000;
const NOT_WIRED = 'OpenClaw is not available on this server.';

export class StatusFeed {
  status = $state.raw<OpenClawStatus | null>(null);
  /** Why the status cannot be read ("" while fine). */
  error = $state('');
  /** The server has no OpenClaw service (503): nothing to show but that. */
  unavailable = $state(false);

  private stream: SseStream | null = null;
  private poll: ReturnType<typeof setTimeout> | undefined;
  private running = false;

  constructor(private readonly api: OpenClawApi = shared.openclaw) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stream = this.api.streamStatus({
      onData: (s) => {
        this.status = s;
        this.error = '';
      },
      onFatal: (err) => {
        this.stream = null;
        if (err instanceof ApiError && err.status === 503) {
          this.unavailable = true;
          this.error = NOT_WIRED;
          return;
        }
        // No stream (a proxy, an old webview): read the JSON now and then.
        void this.refresh(true);
      },
    });
  }

  stop(): void {
    this.running = false;
    this.stream?.close();
    this.stream = null;
    clearTimeout(this.poll);
  }

  /** Reads the status as JSON once (after an MCP registration, say); with poll, keeps doing so. */
  async refresh(poll = false): Promise<void> {
    try {
      this.status = await this.api.status();
      this.error = '';
    } catch (err) {
      if (err instanceof ApiError && err.status === 503) {
        this.unavailable = true;
        this.error = NOT_WIRED;
        return;
      }
      this.error = describeError(err);
    }
    if (poll && this.running) {
      clearTimeout(this.poll);
      this.poll = setTimeout(() => void this.refresh(true), POLL_MS);
    }
  }

  /** Shows saved settings at once; the stream's next status follows the reconnect. */
  applySettings(s: OpenClawSettings): void {
    if (this.status) this.status = { ...this.status, settings: s };
  }
}

export class ActivityFeed {
  entries = $state.raw<OpenClawActivity[]>([]);
  loaded = $state(false);
  error = $state('');
  live = $state(false);

  private stream: SseStream | null = null;

  constructor(private readonly api: OpenClawApi = shared.openclaw) {}

  start(): void {
    if (this.stream) return;
    this.stream = this.api.streamActivity({
      onState: (s) => (this.live = s === 'open'),
      onData: (d) => {
        // "recent" is the server's whole list, also after a reconnect: it replaces ours.
        this.entries = 'recent' in d ? appendEntries([], d.recent) : appendEntries(this.entries, [d.entry]);
        this.loaded = true;
        this.error = '';
      },
      onFatal: (err) => {
        this.stream = null;
        this.live = false;
        this.error = err instanceof ApiError && err.status === 503 ? NOT_WIRED : describeError(err);
        if (!(err instanceof ApiError && err.status === 503)) void this.fallback();
      },
    });
  }

  stop(): void {
    this.stream?.close();
    this.stream = null;
    this.live = false;
  }

  private async fallback(): Promise<void> {
    try {
      this.entries = appendEntries([], await this.api.activity());
      this.loaded = true;
    } catch (err) {
      this.error = describeError(err);
    }
  }
}
