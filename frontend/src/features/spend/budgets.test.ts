import { describe, expect, it } from 'vitest';
import type { Budget } from '../../lib/api/boardTypes';
import { applyBudgetEvent, budgetPercent, parseUsd, upsertBudget } from './budgets';

function b(over: Partial<Budget>): Budget {
  return { scope: 'agent', scopeId: 'a', limitUsd: 1, spentUsd: 0, mode: 'cap', status: 'ok', createdAt: 1, updatedAt: 1, ...over };
}

describe('budgets', () => {
  it('keeps one budget per scope, missions first, then teams, then agents', () => {
    let list = upsertBudget([], b({ scope: 'agent', scopeId: 'z' }));
    list = upsertBudget(list, b({ scope: 'mission', scopeId: 'm' }));
    list = upsertBudget(list, b({ scope: 'agent', scopeId: 'a' }));
    list = upsertBudget(list, b({ scope: 'agent', scopeId: 'z', spentUsd: 0.5 }));
    expect(list.map((x) => `${x.scope}/${x.scopeId}/${x.spentUsd}`)).toEqual(['mission/m/0', 'agent/a/0', 'agent/z/0.5']);
  });

  it('applies live events, deletions included', () => {
    const list = [b({ scopeId: 'a' }), b({ scopeId: 'b' })];
    expect(applyBudgetEvent(list, { kind: 'budget-deleted', budget: b({ scopeId: 'a' }) }).map((x) => x.scopeId)).toEqual(['b']);
    expect(applyBudgetEvent(list, { kind: 'budget', budget: b({ scopeId: 'a', status: 'paused' }) })[0]?.status).toBe('paused');
  });

  it('says how full a budget is, capped for the bar', () => {
    expect(budgetPercent({ limitUsd: 2, spentUsd: 0.5 })).toBe(25);
    expect(budgetPercent({ limitUsd: 1, spentUsd: 3 })).toBe(100);
    expect(budgetPercent({ limitUsd: 0, spentUsd: 0 })).toBe(0);
    expect(budgetPercent({ limitUsd: 1, spentUsd: -1 })).toBe(0);
  });

  it('reads typed dollar amounts', () => {
    expect(parseUsd('2')).toBe(2);
    expect(parseUsd(' $1.50 ')).toBe(1.5);
    expect(parseUsd('.25')).toBe(0.25);
    expect(parseUsd('1,000')).toBe(1000);
    for (const bad of ['', 'abc', '-1', '1.2.3', '1e3']) expect(parseUsd(bad), bad).toBeNaN();
  });
});
