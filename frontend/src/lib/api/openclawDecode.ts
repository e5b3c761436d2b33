// Boundary checks for the OpenClaw routes, in the spirit of decode.ts. The
// status is normalised (counts to numbers, lists and maps never absent) so
// the card can read it without guards.

import { DecodeError, isObject } from './decode';
import type { McpRegistration, OpenClawActivity, OpenClawSettings, OpenClawStatus } from './openclawTypes';

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeOpenClawSettings(v: unknown): OpenClawSettings {
  need(isObject(v) && typeof v.url === 'string' && typeof v.tokenSet === 'boolean', 'OpenClaw settings');
  return v as unknown as OpenClawSettings;
}

export function decodeOpenClawStatus(v: unknown): OpenClawStatus {
  need(isObject(v) && isObject(v.connection) && typeof v.connection.status === 'string', 'OpenClaw status');
  const s = v as unknown as OpenClawStatus;
  return {
    ...s,
    connection: { ...s.connection, attempts: Number(s.connection.attempts) || 0 },
    settings: decodeOpenClawSettings(s.settings),
    health: isObject(s.health) ? s.health : { ok: false },
    agents: Array.isArray(s.agents) ? s.agents : [],
    liveRuns: Number(s.liveRuns) || 0,
    pendingApprovals: Number(s.pendingApprovals) || 0,
    mcpServers: isObject(s.mcpServers) ? s.mcpServers : {},
    mcpRegistered: s.mcpRegistered === true,
  };
}

export function decodeOpenClawActivity(v: unknown): OpenClawActivity {
  need(isObject(v) && typeof v.sessionKey === 'string' && isObject(v.event), 'OpenClaw activity entry');
  need(typeof v.event.kind === 'string', 'OpenClaw activity event without a kind');
  return v as unknown as OpenClawActivity;
}

/** The activity list, bare or as {activity: [...]}; null or absent is empty. */
export function decodeOpenClawActivityList(v: unknown): OpenClawActivity[] {
  const list = isObject(v) ? v.activity : v;
  if (list === null || list === undefined) return [];
  need(Array.isArray(list), 'OpenClaw activity is not a list');
  return list.map(decodeOpenClawActivity);
}

export function decodeMcpRegistration(v: unknown): McpRegistration {
  need(isObject(v) && Array.isArray(v.servers), 'MCP registration answer');
  return v as unknown as McpRegistration;
}
