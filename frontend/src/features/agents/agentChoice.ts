// The options of an agent chooser (AgentCombobox): "none" first (unless the
// person is searching), then the agents whose name or runtime contains the
// search, an optional group (a team's members) ahead of the rest, each in
// name order.

import type { Agent } from '../../lib/api/agentTypes';
import { textMatches } from '../../lib/ui/combobox';

export interface AgentOption {
  /** "" for the "none" option. */
  id: string;
  name: string;
  runtime: string;
  /** In the group put first (e.g. the chosen team's members). */
  member: boolean;
  ready: boolean;
}

type AgentLike = Pick<Agent, 'id' | 'name' | 'runtime'> & { providerReady?: boolean };

export function agentOptions(
  agents: readonly AgentLike[],
  query: string,
  opts: { none?: string; members?: readonly string[] } = {},
): AgentOption[] {
  const members = new Set(opts.members ?? []);
  const shown = agents
    .filter((a) => textMatches(query, a.name, a.runtime))
    .map((a) => ({ id: a.id, name: a.name, runtime: a.runtime, member: members.has(a.id), ready: a.providerReady !== false }))
    .sort((a, b) => Number(b.member) - Number(a.member) || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
  if (opts.none !== undefined && query.trim() === '') shown.unshift({ id: '', name: opts.none, runtime: '', member: false, ready: true });
  return shown;
}

/** What the input shows for the chosen agent ("" for none). */
export function agentText(a: Pick<Agent, 'name' | 'runtime'> | undefined): string {
  return a ? `${a.name} · ${a.runtime}` : '';
}
