import { describe, expect, it } from 'vitest';
import { appendLine, MOCK_DIRECTIVES } from './mockDirectives';

describe('mock directives', () => {
  it('appends a directive as its own line', () => {
    expect(appendLine('', '!ok a')).toBe('!ok a');
    expect(appendLine('hello', '!ok a')).toBe('hello\n!ok a');
    expect(appendLine('hello\n', '!ok a')).toBe('hello\n!ok a');
  });

  it('every example is a directive line the mock parses (a `!word` at the start)', () => {
    for (const d of MOCK_DIRECTIVES) expect(d.example).toMatch(/^![A-Za-z0-9_]+( |$)/);
  });
});
