// A person's own ACP agents (backend/api/acp.go), kept apart from client.ts
// so that file stays small; reached as `api.acp`. Each agent added becomes a
// runtime ("acp-…", family acp) listed in GET /api/runtimes like the others.

import { DecodeError, decodeRuntimeEntry, isObject } from './decode';
import type { AddAcpAgentRequest, RuntimeEntry } from './types';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

export class AcpAgentsApi {
  constructor(private readonly request: Request) {}

  /**
   * Adds an ACP agent and answers its runtime entry. A command that is not
   * a program here, shell syntax, a bad key name or no name rejects with
   * the backend's words (400).
   */
  async add(req: AddAcpAgentRequest): Promise<RuntimeEntry> {
    const v = await this.request('POST', '/api/acp/agents', req);
    if (!isObject(v)) throw new DecodeError('unexpected response from the backend: added ACP agent is not {runtime}');
    return decodeRuntimeEntry(v.runtime);
  }

  /** Removes an ACP agent a person added; 409 (in words) for the catalog's or one agents still run on. */
  async remove(runtimeId: string): Promise<void> {
    await this.request('DELETE', `/api/acp/agents/${encodeURIComponent(runtimeId)}`);
  }
}
