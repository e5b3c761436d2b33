import { describe, expect, it } from 'vitest';
import { planMark, planProgress, planStatusWords } from './plan';

describe('plan words', () => {
  it('marks and says each status', () => {
    expect(['completed', 'in_progress', 'pending'].map((s) => planMark(s as never))).toEqual(['✓', '▸', '○']);
    expect(['completed', 'in_progress', 'pending'].map((s) => planStatusWords(s as never))).toEqual(['done', 'in progress', 'to do']);
  });

  it('counts what is done', () => {
    expect(planProgress([])).toBe('0 of 0 done');
    expect(
      planProgress([
        { content: 'a', status: 'completed' },
        { content: 'b', status: 'in_progress' },
        { content: 'c', status: 'pending' },
      ]),
    ).toBe('1 of 3 done');
  });
});
