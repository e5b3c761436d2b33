// The agents routes of the API client (backend/api/agents.go), kept apart
// from client.ts so that file stays small; reached as `api.agents`.

import { decodeAgentAnswer, decodeAgents } from './agentDecode';
import type { Agent, AgentInput } from './agentTypes';
import { DecodeError, decodeStartRun, isObject } from './decode';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

const agentUrl = (id: string): string => `/api/agents/${encodeURIComponent(id)}`;
const DEFAULT_PROVIDER_URL = '/api/settings/default-native-provider';

function decodeDefaultProvider(v: unknown): string | null {
  if (!isObject(v) || !(v.provider === null || typeof v.provider === 'string')) {
    throw new DecodeError('unexpected response from the backend: default provider is not {provider}');
  }
  return v.provider;
}

export class AgentsApi {
  constructor(private readonly request: Request) {}

  async list(signal?: AbortSignal): Promise<Agent[]> {
    return decodeAgents(await this.request('GET', '/api/agents', undefined, signal));
  }

  async get(id: string, signal?: AbortSignal): Promise<Agent> {
    return decodeAgentAnswer(await this.request('GET', agentUrl(id), undefined, signal));
  }

  /** Creates an agent; a refused input rejects with the backend's words (400). */
  async create(req: AgentInput): Promise<Agent> {
    return decodeAgentAnswer(await this.request('POST', '/api/agents', req));
  }

  async patch(id: string, patch: AgentInput): Promise<Agent> {
    return decodeAgentAnswer(await this.request('PATCH', agentUrl(id), patch));
  }

  /** Deletes an agent; 409 while it has a live run. */
  async remove(id: string): Promise<void> {
    await this.request('DELETE', agentUrl(id));
  }

  /** Starts one turn of the agent's 1:1 chat and returns the run's id; stream it like any run. */
  async chat(id: string, message: string): Promise<{ runId: string }> {
    return decodeStartRun(await this.request('POST', `${agentUrl(id)}/chat`, { message }));
  }

  /** The provider a native agent created without one takes (null: none recorded). */
  async defaultProvider(signal?: AbortSignal): Promise<string | null> {
    return decodeDefaultProvider(await this.request('GET', DEFAULT_PROVIDER_URL, undefined, signal));
  }

  /** Records the default native provider; null clears it. */
  async setDefaultProvider(provider: string | null): Promise<string | null> {
    return decodeDefaultProvider(await this.request('PUT', DEFAULT_PROVIDER_URL, { provider }));
  }
}
