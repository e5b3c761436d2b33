// Pure operations on the budgets list: identity, live updates, and how
// full a budget is.

import type { Budget, BudgetEvent } from '../../lib/api/boardTypes';

/** A budget's identity: one per scope and scope id. */
export function budgetKey(b: Pick<Budget, 'scope' | 'scopeId'>): string {
  return `${b.scope}/${b.scopeId}`;
}

const SCOPE_ORDER = { mission: 0, team: 1, agent: 2 } as const;

function compareBudgets(a: Budget, b: Budget): number {
  const s = (SCOPE_ORDER[a.scope] ?? 9) - (SCOPE_ORDER[b.scope] ?? 9);
  return s !== 0 ? s : a.scopeId.localeCompare(b.scopeId);
}

/** Puts a budget in the list (replacing the one on its scope), sorted by scope then id. */
export function upsertBudget(list: readonly Budget[], b: Budget): Budget[] {
  return [...list.filter((x) => budgetKey(x) !== budgetKey(b)), b].sort(compareBudgets);
}

export function removeBudget(list: readonly Budget[], b: Pick<Budget, 'scope' | 'scopeId'>): Budget[] {
  return list.filter((x) => budgetKey(x) !== budgetKey(b));
}

/** Applies one "budget" event of the lifecycle stream. */
export function applyBudgetEvent(list: readonly Budget[], ev: BudgetEvent): Budget[] {
  return ev.kind === 'budget-deleted' ? removeBudget(list, ev.budget) : upsertBudget(list, ev.budget);
}

/** How much of the limit is spent, 0–100 for the bar (the words say when it is over). */
export function budgetPercent(b: Pick<Budget, 'limitUsd' | 'spentUsd'>): number {
  if (b.limitUsd <= 0) return b.spentUsd > 0 ? 100 : 0;
  return Math.min(100, Math.max(0, (b.spentUsd / b.limitUsd) * 100));
}

/** Reads a dollar amount typed by a person: "$1.50", "2", " 0.25 ". NaN when it is not one. */
export function parseUsd(text: string): number {
  const t = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(t)) return Number.NaN;
  return Number(t);
}
