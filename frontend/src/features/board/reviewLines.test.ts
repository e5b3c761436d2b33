import { describe, expect, it } from 'vitest';
import { diffLines } from './diff';
import { byLine, lineKey, reviewLines, utf8Bytes } from './reviewLines';
import type { LineComment } from '../../lib/api/lineCommentClient';

const DIFF = [
  'diff --git a/README.md b/README.md',
  'index 1..2 100644',
  '--- a/README.md',
  '+++ b/README.md',
  '@@ -3,3 +3,4 @@ intro',
  ' three',
  '-four',
  '+FOUR',
  '+4½',
  ' five',
  'diff --git "a/sp ace.txt" "b/sp ace.txt"',
  'new file mode 100644',
  '--- /dev/null',
  '+++ "b/sp ace.txt"',
  '@@ -0,0 +1 @@',
  '+hi',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('reviewLines', () => {
  it('numbers added and context lines in the new file and removed lines in the old one', () => {
    const rows = reviewLines(diffLines(DIFF).lines, ['README.md', 'sp ace.txt']);
    const targets = rows.filter((r) => r.target).map((r) => `${r.path} ${r.target!.side}:${r.target!.line} ${r.text}`);
    expect(targets).toEqual([
      'README.md new:3  three',
      'README.md old:4 -four',
      'README.md new:4 +FOUR',
      'README.md new:5 +4½',
      'README.md new:6  five',
      'sp ace.txt new:1 +hi',
    ]);
    // Headers, hunks and notes are not commentable.
    expect(rows.filter((r) => !r.target).map((r) => r.kind)).toEqual(['file', 'meta', 'meta', 'meta', 'hunk', 'file', 'meta', 'meta', 'meta', 'hunk', 'meta']);
  });

  it('reads the file from the header when the backend sent no paths, and never numbers a cut notice', () => {
    const rows = reviewLines(diffLines('diff --git a/x.go b/x.go\n@@ -1 +1 @@\n-a\n+b\n\n[diff cut at 1024 KiB; 9 files changed in all]\n').lines);
    expect(rows.filter((r) => r.target).map((r) => `${r.path}:${r.target!.line}`)).toEqual(['x.go:1', 'x.go:1']);
    expect(rows.at(-1)!.target).toBeNull();
  });

  it('groups comments by their line', () => {
    const c = (id: string, path: string, line: number, side: 'new' | 'old' = 'new'): LineComment => ({
      id, taskId: 'T', path, line, side, body: id, createdAt: 1, sentRunId: null, sentAt: null,
    });
    const m = byLine([c('a', 'x', 1), c('b', 'x', 1), c('c', 'x', 1, 'old'), c('d', 'y', 1)]);
    expect(m.get(lineKey('x', 'new', 1))!.map((x) => x.id)).toEqual(['a', 'b']);
    expect(m.get(lineKey('x', 'old', 1))!.map((x) => x.id)).toEqual(['c']);
    expect(m.size).toBe(3);
  });

  it('counts bytes as the backend does', () => {
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('abc')).toBe(3);
  });
});
