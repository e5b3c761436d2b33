// A bounded text accumulator for streamed deltas. A run may stream megabytes
// (`!flood 1000000` sends a million one-character deltas); the page shows
// only the last `cap` characters and says how many came before. Appends are
// O(1) into a small list of pieces, compacted into the kept tail now and
// then, so memory stays O(cap) however long the run. A new block of text
// (paragraph()) starts after a blank line, so separate answers never glue
// into one word ("root.Added").

export interface TextView {
  /** The newest text, at most cap UTF-16 units. */
  text: string;
  /** How many earlier units are not kept. */
  hidden: number;
}

/** The last `cap` units of s, never starting inside a surrogate pair. */
export function tail(s: string, cap: number): string {
  if (s.length <= cap) return s;
  const t = s.slice(s.length - cap);
  const c = t.charCodeAt(0);
  return c >= 0xdc00 && c <= 0xdfff ? t.slice(1) : t;
}

const MAX_PIECES = 1024;

export class TextBuffer {
  private kept = '';
  private pieces: string[] = [];
  private piecesLen = 0;
  private total = 0;
  private cached: TextView = { text: '', hidden: 0 };
  private dirty = false;
  /** The last two units ever appended (what a paragraph break must add to). */
  private end = '';
  /** The next append starts a new block. */
  private pendingBreak = false;

  constructor(private readonly cap: number) {}

  /**
   * Says the text appended next is a new block (another message or turn):
   * it is put after a blank line unless the text so far already ends with
   * one, or is empty, or the new text starts on a new line itself.
   */
  paragraph(): void {
    if (this.total > 0) this.pendingBreak = true;
  }

  append(s: string): void {
    if (s === '') return;
    if (this.pendingBreak) {
      this.pendingBreak = false;
      if (!s.startsWith('\n') && !this.end.endsWith('\n\n')) s = (this.end.endsWith('\n') ? '\n' : '\n\n') + s;
    }
    this.end = (this.end + s).slice(-2);
    this.pieces.push(s);
    this.piecesLen += s.length;
    this.total += s.length;
    this.dirty = true;
    if (this.piecesLen > this.cap || this.pieces.length >= MAX_PIECES) this.compact();
  }

  /** Total units ever appended. */
  get length(): number {
    return this.total;
  }

  /** The current view; the same object until the text changes (cheap equality for the UI). */
  view(): TextView {
    if (this.dirty) {
      this.compact();
      this.cached = { text: this.kept, hidden: this.total - this.kept.length };
      this.dirty = false;
    }
    return this.cached;
  }

  private compact(): void {
    if (this.pieces.length === 0) return;
    // Join only the pieces' own tail when they alone exceed the cap.
    const joined = this.pieces.join('');
    this.kept = this.piecesLen >= this.cap ? tail(joined, this.cap) : tail(this.kept + joined, this.cap);
    this.pieces = [];
    this.piecesLen = 0;
  }
}
