// Words for money: what a cost kind means, and a task's total over its runs.
// The ledger says how each figure was arrived at (reported by the runtime,
// a free local model, or an estimate); the UI always says so beside it.

import type { CostKind, Run } from './api/types';
import { usd } from './format';

/** Ledger kinds in the order the UI lists them. */
export const COST_KINDS: readonly CostKind[] = ['reported', 'token-estimate', 'char-estimate', 'local'];

/** "reported", "token estimate", "character estimate", "local". */
export function costKindLabel(kind: CostKind | string): string {
  switch (kind) {
    case 'token-estimate':
      return 'token estimate';
    case 'char-estimate':
      return 'character estimate';
    default:
      return kind;
  }
}

/** "$0.25 (reported)", "$0.31 (reported + token estimate)", "$0.00", or "not reported" for null. */
export function costText(amount: number | null, kinds: readonly (CostKind | string)[] = []): string {
  if (amount === null) return 'not reported';
  const known = [...new Set(kinds)];
  return known.length ? `${usd(amount)} (${known.map(costKindLabel).join(' + ')})` : usd(amount);
}

/** Decimals usd() writes v with. */
function usdDecimals(v: number): number {
  return v !== 0 && Math.abs(v) < 0.01 ? 4 : 2;
}

/**
 * "$0.016 of $0.020": an amount against a limit, both written with the same
 * number of decimals, and with more of them whenever rounding would make two
 * different amounts read alike (80 % of $0.02 is not "$0.02 of $0.02").
 */
export function usdOf(spent: number, limit: number): string {
  let d = Math.max(usdDecimals(spent), usdDecimals(limit));
  const fix = (v: number) => (Math.abs(v) < 1e-12 ? 0 : v).toFixed(d);
  while (d < 9 && spent !== limit && fix(spent) === fix(limit)) d++;
  return `$${fix(spent)} of $${fix(limit)}`;
}

export interface TaskCost {
  /** Sum of the runs' costs, or null when no run has a figure yet. */
  usd: number | null;
  /** The kinds behind the sum, in COST_KINDS order. */
  kinds: CostKind[];
  /** Runs with a figure, and all runs. */
  priced: number;
  runs: number;
}

/** A task's spend: the sum of its runs' ledger figures. */
export function taskCost(runs: readonly Pick<Run, 'costUsd' | 'costKind'>[]): TaskCost {
  let sum = 0;
  let priced = 0;
  const kinds = new Set<CostKind>();
  for (const r of runs) {
    if (r.costUsd === null || !Number.isFinite(r.costUsd)) continue;
    sum += r.costUsd;
    priced++;
    if (r.costKind) kinds.add(r.costKind);
  }
  return {
    usd: priced ? Math.round(sum * 1e9) / 1e9 : null,
    kinds: COST_KINDS.filter((k) => kinds.has(k)),
    priced,
    runs: runs.length,
  };
}
