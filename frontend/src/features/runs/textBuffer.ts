// A bounded text accumulator for streamed deltas. A run may stream megabytes
// (`!flood 1000000` sends a million one-character deltas); the page shows
// only the last `cap` characters and says how many came before. Appends are
// O(1) into a small list of pieces, compacted into the kept tail now and
// then, so memory stays O(cap) however long the run.

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

  constructor(private readonly cap: number) {}

  append(s: string): void {
    if (s === '') return;
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
