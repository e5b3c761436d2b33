// Names, not ids, for the Spend page's breakdowns: a ledger key (an agent's,
// a team's or a root task's id) as the person knows it.

import { shortId } from '../../lib/format';

export interface Named {
  id: string;
  name: string;
}

/**
 * The name for key among known, `none` for the empty key (spend with no
 * agent, team or task), and for an id no longer known (removed, or not loaded
 * yet) "<short id> (not found)", the full id staying in the row's title.
 */
export function spendLabel(key: string, known: ReadonlyMap<string, string>, none: string): string {
  if (key === '') return none;
  const name = known.get(key);
  return name ? name : `${shortId(key)} (not found)`;
}

/** id → name of a list of agents or teams, or tasks by their titles. */
export function nameMap(items: readonly Named[]): Map<string, string> {
  return new Map(items.map((i) => [i.id, i.name]));
}
