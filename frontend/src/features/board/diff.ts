// Reads a unified diff (git diff output) into classified lines for the diff
// viewer. Stateful on purpose: inside a hunk, a line "+++x" is an added line
// starting "++x", not a file header.

export type DiffLineKind = 'file' | 'meta' | 'hunk' | 'add' | 'del' | 'context';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export interface DiffView {
  lines: DiffLine[];
  /** Lines left out to keep the page light (the backend caps the text too). */
  hidden: number;
}

/** How many lines the viewer renders at most. */
export const MAX_DIFF_LINES = 4000;

/** Classifies every line of a unified diff, keeping at most max. */
export function diffLines(diff: string, max = MAX_DIFF_LINES): DiffView {
  const raw = diff.endsWith('\n') ? diff.slice(0, -1) : diff;
  if (raw === '') return { lines: [], hidden: 0 };
  const all = raw.split('\n');
  const lines: DiffLine[] = [];
  let inHunk = false;
  for (const text of all.slice(0, max)) {
    let kind: DiffLineKind;
    if (text.startsWith('diff --git ') || text.startsWith('diff --cc ')) {
      kind = 'file';
      inHunk = false;
    } else if (text.startsWith('@@')) {
      kind = 'hunk';
      inHunk = true;
    } else if (!inHunk) {
      kind = 'meta'; // index, mode, ---/+++ headers, "Binary files … differ", a cut notice
    } else if (text.startsWith('+')) {
      kind = 'add';
    } else if (text.startsWith('-')) {
      kind = 'del';
    } else if (text.startsWith('\\')) {
      kind = 'meta'; // "\ No newline at end of file"
    } else {
      kind = 'context';
    }
    lines.push({ kind, text });
  }
  return { lines, hidden: Math.max(0, all.length - max) };
}

/** The files a diff touches, from its "diff --git a/x b/x" lines (the b side). */
export function diffFiles(diff: string): string[] {
  const out: string[] = [];
  for (const m of diff.matchAll(/^diff --git a\/.* b\/(.*)$/gm)) out.push(m[1]!);
  return out;
}
