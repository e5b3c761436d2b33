import { describe, expect, test } from 'vitest';
import { mayBeMarkdown, parseInline, parseMarkdown, safeHref } from './roomMarkdown';

describe('room markdown', () => {
  test('paragraphs, headings, lists and fenced code are blocks', () => {
    const md = '# Plan\n\nFirst **bold** and *it*.\nSecond line\n\n- one\n- `two`\n\n1. a\n2. b\n\n```go\nx := 1\n```';
    expect(parseMarkdown(md)).toEqual([
      { type: 'h', c: [{ t: 'text', s: 'Plan' }] },
      {
        type: 'p',
        c: [
          { t: 'text', s: 'First ' },
          { t: 'b', c: [{ t: 'text', s: 'bold' }] },
          { t: 'text', s: ' and ' },
          { t: 'i', c: [{ t: 'text', s: 'it' }] },
          { t: 'text', s: '.' },
          { t: 'br' },
          { t: 'text', s: 'Second line' },
        ],
      },
      { type: 'ul', items: [[{ t: 'text', s: 'one' }], [{ t: 'code', s: 'two' }]] },
      { type: 'ol', start: 1, items: [[{ t: 'text', s: 'a' }], [{ t: 'text', s: 'b' }]] },
      { type: 'code', text: 'x := 1' },
    ]);
  });

  test('raw HTML stays text', () => {
    const blocks = parseMarkdown('<img src=x onerror=alert(1)> <script>alert(1)</script>');
    expect(blocks).toEqual([{ type: 'p', c: [{ t: 'text', s: '<img src=x onerror=alert(1)> <script>alert(1)</script>' }] }]);
  });

  test('links follow http(s) only; any other target leaves only the words', () => {
    expect(parseInline('[docs](https://example.com/a)')).toEqual([{ t: 'a', href: 'https://example.com/a', c: [{ t: 'text', s: 'docs' }] }]);
    expect(parseInline('[click](javascript:alert(1))')).toEqual([{ t: 'text', s: 'click' }, { t: 'text', s: ')' }]);
    expect(parseInline('[f](file:///etc/passwd)')).toEqual([{ t: 'text', s: 'f' }]);
    expect(safeHref('data:text/html,hi')).toBeNull();
    expect(safeHref(' http://127.0.0.1:5173 ')).toBe('http://127.0.0.1:5173');
  });

  test('bare URLs become links without their trailing punctuation', () => {
    expect(parseInline('see https://example.com/x.')).toEqual([
      { t: 'text', s: 'see ' },
      { t: 'a', href: 'https://example.com/x', c: [{ t: 'text', s: 'https://example.com/x' }] },
      { t: 'text', s: '.' },
    ]);
  });

  test('snake_case and lone stars stay text', () => {
    expect(parseInline('run make_test_db now')).toEqual([{ t: 'text', s: 'run make_test_db now' }]);
    expect(parseInline('2 * 3 * 4')).toEqual([{ t: 'text', s: '2 * 3 * 4' }]);
    expect(parseInline('an `unclosed tick')).toEqual([{ t: 'text', s: 'an `unclosed tick' }]);
  });

  test('plain text is told apart cheaply', () => {
    expect(mayBeMarkdown('Report on "Add NOTES.md": done.')).toBe(false);
    expect(mayBeMarkdown('Done:\n- one')).toBe(true);
    expect(mayBeMarkdown('**done**')).toBe(true);
  });
});
