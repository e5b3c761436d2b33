import { describe, expect, it } from 'vitest';
import { diffFiles, diffLines } from './diff';

const DIFF = `diff --git a/notes/hello.txt b/notes/hello.txt
new file mode 100644
index 0000000..7ee67c4
--- /dev/null
+++ b/notes/hello.txt
@@ -0,0 +1,2 @@
+hello from the mock
++++ not a header
diff --git a/README b/README
index 1..2 100644
--- a/README
+++ b/README
@@ -1,3 +1,3 @@ section
 keep
-old
--- not a header either
+new
\\ No newline at end of file
`;

describe('diff lines', () => {
  it('classifies headers, hunks, additions, deletions and context', () => {
    const v = diffLines(DIFF);
    expect(v.hidden).toBe(0);
    expect(v.lines.map((l) => l.kind)).toEqual([
      'file', 'meta', 'meta', 'meta', 'meta', 'hunk', 'add', 'add',
      'file', 'meta', 'meta', 'meta', 'hunk', 'context', 'del', 'del', 'add', 'meta',
    ]);
    expect(v.lines[7]).toEqual({ kind: 'add', text: '++++ not a header' });
    expect(v.lines[15]).toEqual({ kind: 'del', text: '--- not a header either' });
  });

  it('keeps at most max lines and counts the rest', () => {
    const v = diffLines(DIFF, 6);
    expect(v.lines).toHaveLength(6);
    expect(v.hidden).toBe(12);
  });

  it('reads an empty diff as no lines', () => {
    expect(diffLines('')).toEqual({ lines: [], hidden: 0 });
    expect(diffLines('\n')).toEqual({ lines: [], hidden: 0 });
  });

  it('lists the files a diff touches', () => {
    expect(diffFiles(DIFF)).toEqual(['notes/hello.txt', 'README']);
    expect(diffFiles('')).toEqual([]);
  });
});
