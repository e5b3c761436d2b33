// Gives each line of a classified diff (diff.ts) its file and line numbers,
// so a reviewer can comment on it: an added or context line is numbered in
// the new file, a removed line in the old one. The file of each section is
// the backend's (TaskDiff.paths, which unquotes git's names) when it sent
// one, else read from the section's "diff --git" line as diffFiles does.

import type { DiffLine } from './diff';
import type { LineComment, LineSide } from '../../lib/api/lineCommentClient';

export interface ReviewLine extends DiffLine {
  /** The file of the section the line is in ('' before the first). */
  path: string;
  /** Where a comment on this line points; null for headers and notes. */
  target: { side: LineSide; line: number } | null;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;
const HEADER = /^diff --git a\/.* b\/(.*)$/;

export function reviewLines(lines: DiffLine[], paths: string[] = []): ReviewLine[] {
  let section = -1;
  let path = '';
  let oldNo = 0;
  let newNo = 0;
  let numbered = false;
  return lines.map((l): ReviewLine => {
    let target: ReviewLine['target'] = null;
    switch (l.kind) {
      case 'file':
        section++;
        path = paths[section] ?? HEADER.exec(l.text)?.[1] ?? '';
        numbered = false;
        break;
      case 'hunk': {
        const m = HUNK.exec(l.text);
        numbered = !!m;
        if (m) {
          oldNo = Number(m[1]);
          newNo = Number(m[2]);
        }
        break;
      }
      case 'add':
        if (numbered) target = { side: 'new', line: newNo++ };
        break;
      case 'del':
        if (numbered) target = { side: 'old', line: oldNo++ };
        break;
      case 'context':
        // A context line starts with a space: the blank line and the note
        // the backend adds when it cuts a huge diff are not lines of a file.
        if (numbered && l.text.startsWith(' ')) {
          target = { side: 'new', line: newNo++ };
          oldNo++;
        }
        break;
    }
    return { ...l, path, target: path ? target : null };
  });
}

/** The key of a line a comment can point at. */
export function lineKey(path: string, side: LineSide, line: number): string {
  return `${side}:${line}:${path}`;
}

/** Comments grouped by the line they point at. */
export function byLine(comments: LineComment[]): Map<string, LineComment[]> {
  const out = new Map<string, LineComment[]>();
  for (const c of comments) {
    const k = lineKey(c.path, c.side, c.line);
    const list = out.get(k);
    if (list) list.push(c);
    else out.set(k, [c]);
  }
  return out;
}

/** Bytes of UTF-8, as the backend counts a comment's length. */
export function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}
