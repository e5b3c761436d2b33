// A pure Server-Sent Events parser (the WHATWG "event stream interpretation"
// algorithm). It takes bytes in chunks split anywhere - inside a line, inside
// a CRLF pair, inside a multi-byte UTF-8 character - and returns the messages
// completed so far. No I/O, no timers: the streaming client feeds it.
//
// We parse SSE ourselves instead of using EventSource because EventSource is
// unreliable in the desktop webview (WebKitGTK on a custom wails:// scheme),
// while fetch streaming works there and in every browser: one code path.

/** One dispatched message. */
export interface SseMessage {
  /** The `event:` field, else "message". */
  event: string;
  /** The `data:` lines joined by "\n". */
  data: string;
  /** The last event id in force at dispatch ("" when none was ever set). */
  id: string;
}

export interface SseParserOptions {
  /** The id to start from (a resumed connection keeps the old one until a new id arrives). */
  lastEventId?: string;
  /**
   * Largest pending line or event, in UTF-16 code units. A stream that
   * exceeds it throws SseTooLargeError rather than growing without bound.
   */
  maxEventSize?: number;
}

export class SseTooLargeError extends Error {
  override name = 'SseTooLargeError';
}

const DEFAULT_MAX_EVENT = 16 * 1024 * 1024;

export class SseParser {
  // fatal: false replaces invalid bytes with U+FFFD, as the spec asks;
  // ignoreBOM: false strips one leading BOM, also as the spec asks.
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
  private readonly maxEventSize: number;
  private readonly lineEnd = /\r\n|\r|\n/g;
  /** Text of the line being read, not yet terminated. */
  private line = '';
  /** The previous chunk ended in CR: an LF starting the next one is part of that CRLF. */
  private afterCR = false;
  /** Nothing has been read yet: a leading BOM may still come (text input). */
  private atStart = true;
  private data: string[] = [];
  private dataSize = 0;
  private eventType = '';
  private idBuffer: string;
  private lastId: string;
  private retryMs: number | null = null;

  constructor(opts: SseParserOptions = {}) {
    this.idBuffer = opts.lastEventId ?? '';
    this.lastId = this.idBuffer;
    this.maxEventSize = opts.maxEventSize ?? DEFAULT_MAX_EVENT;
  }

  /** The id a reconnect should send as Last-Event-ID: set only when a message is dispatched. */
  get lastEventId(): string {
    return this.lastId;
  }

  /** The reconnection delay the server asked for with `retry:`, or null. */
  get retry(): number | null {
    return this.retryMs;
  }

  /** Feeds raw bytes; returns the messages they complete. */
  push(chunk: Uint8Array): SseMessage[] {
    // The decoder has already stripped a BOM and holds back a split character.
    const text = this.decoder.decode(chunk, { stream: true });
    if (text !== '') this.atStart = false;
    return this.feed(text);
  }

  /** Feeds already-decoded text (tests, or a transport that yields strings). */
  pushText(text: string): SseMessage[] {
    if (this.atStart && text !== '') {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return this.feed(text);
  }

  private feed(text: string): SseMessage[] {
    const out: SseMessage[] = [];
    if (text === '') return out;
    const lineEnd = this.lineEnd;
    let start = 0;
    if (this.afterCR) {
      this.afterCR = false;
      if (text.charCodeAt(0) === 0x0a) start = 1;
    }
    // Scan only the new text for line ends, so a long line that arrives in
    // many small chunks costs linear time, not quadratic.
    lineEnd.lastIndex = start;
    for (let m = lineEnd.exec(text); m !== null; m = lineEnd.exec(text)) {
      const piece = text.slice(start, m.index);
      const line = this.line === '' ? piece : this.line + piece;
      this.line = '';
      start = m.index + m[0].length;
      if (m[0] === '\r' && start === text.length) this.afterCR = true;
      this.processLine(line, out);
    }
    if (start < text.length) {
      this.line += text.slice(start);
      if (this.line.length + this.dataSize > this.maxEventSize) {
        throw new SseTooLargeError(`an event stream line exceeded ${this.maxEventSize} characters`);
      }
    }
    return out;
  }

  /**
   * Ends the stream. Per the spec an event not closed by a blank line is
   * discarded: its id was never committed, so a reconnect asks for it again.
   */
  end(): SseMessage[] {
    const out = this.feed(this.decoder.decode());
    this.line = '';
    this.afterCR = false;
    this.data = [];
    this.dataSize = 0;
    this.eventType = '';
    return out;
  }

  private processLine(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 0x3a /* ':' */) return; // a comment, e.g. the server's ": ping"
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon < 0) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        this.dataSize += value.length + 1;
        if (this.dataSize > this.maxEventSize) {
          throw new SseTooLargeError(`an event exceeded ${this.maxEventSize} characters`);
        }
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private dispatch(out: SseMessage[]): void {
    this.lastId = this.idBuffer;
    if (this.data.length === 0) {
      this.eventType = '';
      return;
    }
    out.push({ event: this.eventType || 'message', data: this.data.join('\n'), id: this.lastId });
    this.data = [];
    this.dataSize = 0;
    this.eventType = '';
  }
}
