// Folds an install stream into what the card shows: a bounded log, the
// latest progress message, the errors with their advice, and the outcome.
// Mutable and plain (no runes) so it is cheap per event and testable; the
// session publishes snapshots of it at most once a frame.

import type { InstallEvent } from '../../lib/api/types';

/** Log lines kept; older ones are dropped and counted. */
export const MAX_LOG_LINES = 500;
/** Errors kept (an installer rarely reports more than two). */
const MAX_ERRORS = 20;

export type InstallStatus = 'running' | 'succeeded' | 'failed' | 'stopped';

export interface LogLine {
  /** Position in the whole stream: a stable key while old lines drop off. */
  n: number;
  text: string;
  kind: 'stdout' | 'stderr' | 'progress' | 'error';
}

export interface InstallError {
  code: string;
  message: string;
}

export interface InstallView {
  status: InstallStatus;
  lines: readonly LogLine[];
  /** Lines dropped from the front to keep the log bounded. */
  hidden: number;
  /** The latest progress message ("Installing Claude Code…"). */
  progress: string;
  errors: readonly InstallError[];
  /** Set by a successful install whose CLI still cannot be found. */
  warning: string | null;
}

/** Codes that report a problem but do not end the stream: a final error follows. */
const NON_FINAL = new Set(['EACCES']);

export class InstallLog {
  private status: InstallStatus = 'running';
  private lines: LogLine[] = [];
  private seen = 0;
  private progress = '';
  private errors: InstallError[] = [];
  private warning: string | null = null;

  get running(): boolean {
    return this.status === 'running';
  }

  push(ev: InstallEvent): void {
    if (!this.running) return;
    switch (ev.type) {
      case 'progress':
        if (ev.message) {
          this.progress = ev.message;
          this.line(ev.message, 'progress');
        }
        break;
      case 'output':
        this.line(ev.line, ev.stream);
        break;
      case 'error':
        this.error(ev.code, ev.message);
        if (!NON_FINAL.has(ev.code)) this.status = 'failed';
        break;
      case 'complete':
        this.status = ev.success ? 'succeeded' : 'failed';
        this.warning = ev.warning ?? null;
        if (!ev.success && this.errors.length === 0) this.error('FAILED', 'The install did not succeed.');
        break;
    }
  }

  /**
   * The stream ended. How: cleanly (eof), because the user stopped it, or
   * with an error (a refusal such as 409, or a lost connection), given as
   * a code and words. An install that ends before "complete" failed.
   */
  end(how: { kind: 'eof' } | { kind: 'stopped' } | { kind: 'error'; code: string; message: string }): void {
    if (!this.running) return;
    switch (how.kind) {
      case 'stopped':
        this.status = 'stopped';
        this.progress = 'Install stopped.';
        this.line('Install stopped.', 'progress');
        return;
      case 'error':
        this.error(how.code, how.message);
        break;
      case 'eof':
        if (this.errors.length === 0) this.error('ENDED', 'The install ended before it finished.');
        break;
    }
    this.status = 'failed';
  }

  view(): InstallView {
    const from = Math.max(0, this.lines.length - MAX_LOG_LINES);
    return {
      status: this.status,
      lines: this.lines.slice(from),
      hidden: this.seen - this.lines.length + from,
      progress: this.progress,
      errors: this.errors.slice(),
      warning: this.warning,
    };
  }

  private line(text: string, kind: LogLine['kind']): void {
    this.lines.push({ n: this.seen++, text, kind });
    // Trim in batches: one splice per hundred lines, not a shift per line.
    if (this.lines.length > MAX_LOG_LINES + 100) this.lines.splice(0, this.lines.length - MAX_LOG_LINES);
  }

  private error(code: string, message: string): void {
    this.errors.push({ code, message });
    if (this.errors.length > MAX_ERRORS) this.errors.shift();
    this.line(message, 'error');
  }
}
