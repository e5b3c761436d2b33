// Streams one run into the run pane. Events are folded into a bounded
// RunAccumulator as they arrive, and the reactive view is published at most
// once per animation frame: a flood of deltas costs one render per frame, not
// one per event, and nothing queues up between frames.

import { ApiError, describeError, runEventsUrl, type ApiClient } from '../../lib/api/client';
import { parseRunEvent } from '../../lib/api/decode';
import { isTerminal, type Run } from '../../lib/api/types';
import { openSseStream, type SseStream, type StreamState } from '../../lib/sse/stream';
import { RunAccumulator, type RunView } from './runView';

export class RunStream {
  view: RunView = $state.raw(new RunAccumulator('').snapshot());
  /** The run's record as this pane last fetched it (the list may know newer). */
  record: Run | null = $state.raw(null);
  connection: StreamState = $state('connecting');
  /** Why the pane cannot show the run, in words; "" when fine. */
  error = $state('');

  private readonly acc: RunAccumulator;
  private stream: SseStream | null = null;
  private frame = 0;
  private stopped = false;

  constructor(
    readonly runId: string,
    private readonly api: ApiClient,
    /** Where fetched records go, so the list learns them too. */
    private readonly onRecord: (r: Run) => void,
  ) {
    this.acc = new RunAccumulator(runId);
  }

  start(): void {
    void this.fetchRecord();
    this.stream = openSseStream({
      url: runEventsUrl(this.runId),
      onMessage: (m) => {
        const ev = parseRunEvent(m.data);
        if (!ev || !this.acc.apply(ev)) return;
        if (ev.kind === 'done') {
          // The ledger commits right after done; fetch the final record
          // (status, error, cost) and show the end without waiting a frame.
          this.publish();
          void this.fetchRecord();
        } else {
          this.schedule();
        }
      },
      onState: (s) => {
        this.connection = s;
      },
      onFatal: (err) => {
        this.error = describeError(err);
      },
      shouldReconnect: () => this.shouldReconnect(),
    });
  }

  stop(): void {
    this.stopped = true;
    this.stream?.close();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  private schedule(): void {
    if (this.frame || this.stopped) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.publish();
    });
  }

  private publish(): void {
    if (this.stopped) return;
    this.view = this.acc.snapshot();
  }

  /**
   * After the server closes the stream: stop once done has arrived, or when
   * the run is over but its log ended without done (the server then has
   * nothing more to send); otherwise resume from the last seq.
   */
  private async shouldReconnect(): Promise<boolean> {
    if (this.acc.isDone || this.stopped) return false;
    const r = await this.fetchRecord();
    return r === null ? !this.error : !isTerminal(r.status);
  }

  private async fetchRecord(): Promise<Run | null> {
    try {
      const r = await this.api.getRun(this.runId);
      if (this.stopped) return r;
      this.record = r;
      this.onRecord(r);
      return r;
    } catch (err) {
      // A 404 is final (no such run); other failures are transient.
      if (err instanceof ApiError && err.status === 404) this.error = describeError(err);
      return null;
    }
  }
}
