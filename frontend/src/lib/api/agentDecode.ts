// Boundary checks for the agents routes, in the spirit of decode.ts.

import type { Agent } from './agentTypes';
import { DecodeError, isObject } from './decode';

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeAgent(v: unknown): Agent {
  need(isObject(v) && typeof v.id === 'string' && v.id !== '', 'agent without an id');
  need(typeof v.name === 'string' && typeof v.runtime === 'string', `agent ${v.id} has no name or runtime`);
  need(v.config === null || v.config === undefined || isObject(v.config), `agent ${v.id} config`);
  need(v.budgetUsd === null || v.budgetUsd === undefined || typeof v.budgetUsd === 'number', `agent ${v.id} budgetUsd`);
  const warnings = Array.isArray(v.warnings) ? v.warnings.filter((w): w is string => typeof w === 'string') : [];
  return {
    ...(v as unknown as Agent),
    provider: typeof v.provider === 'string' ? v.provider : '',
    model: typeof v.model === 'string' ? v.model : '',
    config: (v.config ?? null) as Agent['config'],
    budgetUsd: (v.budgetUsd ?? null) as number | null,
    providerReady: v.providerReady === true,
    hostId: typeof v.hostId === 'string' && v.hostId !== '' ? v.hostId : null,
    warnings,
  };
}

export function decodeAgents(v: unknown): Agent[] {
  need(isObject(v) && (Array.isArray(v.agents) || v.agents === null), 'agents is not {agents: [...]}');
  return ((v.agents ?? []) as unknown[]).map(decodeAgent);
}

/** {agent} from get, create and patch. */
export function decodeAgentAnswer(v: unknown): Agent {
  need(isObject(v), 'agent answer is not an object');
  return decodeAgent(v.agent);
}
