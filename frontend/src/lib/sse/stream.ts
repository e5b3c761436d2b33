// The one streaming client: fetch() + a body reader + SseParser, with
// reconnect that resumes from the last seen id (Last-Event-ID header) and
// exponential backoff. It replaces EventSource, which the desktop webview
// does not reliably support on its wails:// scheme; fetch streaming works
// there and in browsers alike. postSse is the one-shot variant for a POST
// whose answer is an event stream (a runtime install): no resume, no retry.

import { ApiError, errorFromResponse, isAbort, UNREACHABLE, type FetchFn } from '../api/errors';
import { SseParser, type SseMessage } from './parser';

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Why a connection ended: the server closed it cleanly, or it broke. */
export type EndCause = 'eof' | 'error';

export interface SseStreamOptions {
  url: string;
  /** Resume after this id (sent as Last-Event-ID on the first request too). */
  lastEventId?: string;
  /** Called for each message, in order. A throw stops the stream (reported via onFatal). */
  onMessage: (msg: SseMessage) => void;
  /** Called when a response starts; reconnect is true after the first. */
  onOpen?: (info: { reconnect: boolean }) => void;
  onState?: (state: StreamState, error?: unknown) => void;
  /**
   * Asked after every ended connection whether to try again. The default is
   * yes; a run's stream says no once its done event has arrived.
   */
  shouldReconnect?: (cause: EndCause) => boolean | Promise<boolean>;
  /** An error that ends the stream for good: a 4xx answer, a consumer bug. */
  onFatal?: (error: unknown) => void;
  /** First retry delay; the server's `retry:` field replaces it. */
  minDelayMs?: number;
  maxDelayMs?: number;
  fetch?: FetchFn;
  /** Injected by tests; resolves after ms, or early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface SseStream {
  /** Stops the stream for good and aborts any request in flight. */
  close(): void;
  /** Settles when the stream has stopped (closed, fatal, or done). */
  readonly finished: Promise<void>;
  /** The id a reconnect would resume after. */
  readonly lastEventId: string;
}

/** Wraps an error that must end the stream instead of causing a retry. */
class FatalError extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** 4xx answers will not change on retry; 408 and 429 might. */
function permanent(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Reads a body to its end through parser, handing each message on in order. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  parser: SseParser,
  onMessage: (msg: SseMessage) => void,
  afterChunk?: () => void,
): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const msgs = done ? parser.end() : parser.push(value);
      for (const m of msgs) onMessage(m);
      afterChunk?.();
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

export interface PostSseOptions {
  url: string;
  /** Sent as JSON. */
  body: unknown;
  onMessage: (msg: SseMessage) => void;
  /** Aborting it closes the request (for an install, the backend then stops the installer). */
  signal?: AbortSignal;
  fetch?: FetchFn;
}

/**
 * POSTs and reads the event stream that answers, once, to its end. It
 * never reconnects: what the stream reports (an install) cannot be resumed,
 * and asking again would start it again. Rejects with an ApiError for a
 * refusal (its JSON error text) or a broken connection, and with the
 * AbortError when the signal aborts.
 */
export async function postSse(opts: PostSseOptions): Promise<void> {
  const fetchFn: FetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const init: RequestInit = {
    method: 'POST',
    headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
    body: JSON.stringify(opts.body),
    cache: 'no-store',
  };
  if (opts.signal) init.signal = opts.signal;
  let res: Response;
  try {
    res = await fetchFn(opts.url, init);
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiError(0, UNREACHABLE);
  }
  if (!res.ok) throw await errorFromResponse(res);
  if (!res.body) throw new ApiError(res.status, 'this browser cannot stream responses');
  try {
    await readEvents(res.body, new SseParser(), opts.onMessage);
  } catch (err) {
    if (isAbort(err) || opts.signal?.aborted) throw err;
    if (err instanceof TypeError) throw new ApiError(0, 'the connection to the Clawboo backend broke');
    throw err;
  }
}

export function openSseStream(opts: SseStreamOptions): SseStream {
  const ctl = new AbortController();
  const fetchFn: FetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = opts.sleep ?? defaultSleep;
  const maxDelay = opts.maxDelayMs ?? 15_000;
  let baseDelay = opts.minDelayMs ?? 1_000;
  let lastId = opts.lastEventId ?? '';
  const state = (s: StreamState, err?: unknown): void => opts.onState?.(s, err);
  /** Failed attempts since the last successful open: drives the backoff. */
  let attempt = 0;

  /** Reads one connection to its end. Throws FatalError for errors not worth a retry. */
  async function connectOnce(reconnect: boolean): Promise<void> {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (lastId !== '') headers['Last-Event-ID'] = lastId;
    const res = await fetchFn(opts.url, { headers, signal: ctl.signal, cache: 'no-store' });
    if (!res.ok) {
      const err = await errorFromResponse(res);
      throw permanent(res.status) ? new FatalError(err) : err;
    }
    if (!res.body) throw new FatalError(new Error('this browser cannot stream responses'));
    const parser = new SseParser({ lastEventId: lastId });
    attempt = 0;
    opts.onOpen?.({ reconnect });
    state('open');
    await readEvents(
      res.body,
      parser,
      (m) => {
        lastId = m.id;
        try {
          opts.onMessage(m);
        } catch (err) {
          throw new FatalError(err);
        }
      },
      () => {
        if (parser.retry !== null) baseDelay = parser.retry;
        // An id-only event commits an id without a message.
        lastId = parser.lastEventId;
      },
    );
  }

  async function loop(): Promise<void> {
    let reconnect = false;
    state('connecting');
    while (!ctl.signal.aborted) {
      let cause: EndCause = 'eof';
      let error: unknown;
      try {
        await connectOnce(reconnect);
      } catch (err) {
        if (ctl.signal.aborted) break;
        if (err instanceof FatalError) {
          opts.onFatal?.(err.reason);
          break;
        }
        cause = 'error';
        error = err;
      }
      if (ctl.signal.aborted) break;
      let again: boolean;
      try {
        again = await (opts.shouldReconnect?.(cause) ?? true);
      } catch (err) {
        opts.onFatal?.(err);
        break;
      }
      if (!again || ctl.signal.aborted) break;
      reconnect = true;
      const delay = cause === 'eof' ? baseDelay : Math.min(maxDelay, baseDelay * 2 ** attempt);
      attempt++;
      state('reconnecting', error);
      await sleep(delay, ctl.signal);
    }
    state('closed');
  }

  const finished = loop();
  return {
    close: () => ctl.abort(),
    finished,
    get lastEventId() {
      return lastId;
    },
  };
}
