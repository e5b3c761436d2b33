import { describe, expect, it } from 'vitest';
import { costKindLabel, costText, taskCost, usdOf } from './cost';
import { bytes } from './format';

describe('cost', () => {
  it('labels every ledger kind', () => {
    expect(costKindLabel('reported')).toBe('reported');
    expect(costKindLabel('local')).toBe('local');
    expect(costKindLabel('token-estimate')).toBe('token estimate');
    expect(costKindLabel('char-estimate')).toBe('character estimate');
    expect(costKindLabel('future-kind')).toBe('future-kind');
  });

  it('writes an amount with how it was arrived at', () => {
    expect(costText(0.25, ['reported'])).toBe('$0.25 (reported)');
    expect(costText(0.3123, ['reported', 'token-estimate', 'reported'])).toBe('$0.31 (reported + token estimate)');
    expect(costText(0.004, ['char-estimate'])).toBe('$0.0040 (character estimate)');
    expect(costText(0)).toBe('$0.00');
    expect(costText(null, ['reported'])).toBe('not reported');
  });

  it('sums a task’s runs, ignoring runs without a figure, kinds in a fixed order', () => {
    expect(taskCost([])).toEqual({ usd: null, kinds: [], priced: 0, runs: 0 });
    expect(
      taskCost([
        { costUsd: 0.1, costKind: 'token-estimate' },
        { costUsd: null, costKind: null },
        { costUsd: 0.2, costKind: 'reported' },
        { costUsd: 0, costKind: 'local' },
      ]),
    ).toEqual({ usd: 0.3, kinds: ['reported', 'token-estimate', 'local'], priced: 3, runs: 4 });
    // Float noise does not leak into the figure.
    expect(taskCost([{ costUsd: 0.1, costKind: 'reported' }, { costUsd: 0.2, costKind: 'reported' }]).usd).toBe(0.3);
  });

  it('formats disk sizes', () => {
    expect(bytes(0)).toBe('0 B');
    expect(bytes(87)).toBe('87 B');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(bytes(3_500_000)).toBe('3.3 MB');
    expect(bytes(200 * 1024 * 1024)).toBe('200 MB');
    expect(bytes(5 * 1024 ** 4 * 2048)).toBe('10240 TB');
    expect(bytes(-4)).toBe('0 B');
  });

  it('writes spent against a limit with one precision, never two different amounts alike', () => {
    expect(usdOf(0.016, 0.02)).toBe('$0.016 of $0.020');
    expect(usdOf(0.02, 0.02)).toBe('$0.02 of $0.02');
    expect(usdOf(0.5, 2)).toBe('$0.50 of $2.00');
    expect(usdOf(0, 1)).toBe('$0.00 of $1.00');
    expect(usdOf(0.004, 1)).toBe('$0.0040 of $1.0000');
    expect(usdOf(1.999, 2)).toBe('$1.999 of $2.000');
    expect(usdOf(2.5, 2)).toBe('$2.50 of $2.00');
  });
});
