// The one lifecycle stream (/api/events), shared by every page that shows
// live lists: "run" events for the runs list, "runtimes" events for the
// Runtimes panel. One connection, not one per store: the browser allows
// only six per host, and installs and run streams need theirs.

import { ApiError, describeError, LIFECYCLE_URL } from './api/client';
import { sessionEnded } from './api/session';
import { openSseStream, type SseStream } from './sse/stream';

export type Connection = 'connecting' | 'online' | 'offline';

type Listener = (data: string) => void;

export class LiveEvents {
  connection = $state<Connection>('connecting');
  /** Why the stream stopped for good, in words; "" while fine. */
  error = $state('');

  private stream: SseStream | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly openers = new Set<() => void>();

  /** Calls fn with the data of every event named `event`; returns the unsubscribe. */
  on(event: string, fn: Listener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /**
   * Calls fn whenever a connection opens. The stream carries changes only,
   * never a snapshot, so each (re)connect is when a subscriber re-reads
   * what it shows.
   */
  onOpen(fn: () => void): () => void {
    this.openers.add(fn);
    return () => this.openers.delete(fn);
  }

  start(): void {
    if (this.stream) return;
    this.stream = openSseStream({
      url: LIFECYCLE_URL,
      onOpen: () => {
        for (const fn of this.openers) fn();
      },
      onMessage: (m) => {
        for (const fn of this.listeners.get(m.event) ?? []) {
          try {
            fn(m.data);
          } catch {
            // One bad update must not stop the stream for everyone; the
            // next reconnect's re-read corrects what it would have shown.
          }
        }
      },
      onState: (s) => {
        this.connection = s === 'open' ? 'online' : s === 'connecting' ? 'connecting' : 'offline';
      },
      onFatal: (err) => {
        if (err instanceof ApiError && err.status === 401) sessionEnded();
        this.error = describeError(err);
      },
      maxDelayMs: 10_000,
    });
  }

  stop(): void {
    this.stream?.close();
    this.stream = null;
  }
}
