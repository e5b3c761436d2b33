// Other machines a team's runs may go to (backend/api/hosts.go): an SSH
// destination a person added, what it is and whether it can be used.

import { DecodeError, isObject, parseInstallEvent } from './decode';
import { jsonRequest } from './mergeClient';
import type { FetchFn } from './errors';
import type { InstallEvent } from './types';
import { postSse } from '../sse/stream';

type Request = ReturnType<typeof jsonRequest>;

export type HostState = 'ready' | 'connecting' | 'unreachable' | 'unknown-host-key' | 'host-key-changed' | 'version-mismatch';

export interface Host {
  id: string;
  name: string;
  destination: string;
  state: HostState;
  /** Why it is not ready, in words. */
  reason?: string;
  /** The host key's SHA-256 fingerprint a person is asked to accept (unknown-host-key). */
  fingerprint?: string;
  os: string;
  arch: string;
  cores: number;
  memoryBytes: number;
  runtimes: string[];
  /** Runs at once there: the person's number, or (concurrencyAuto) from its memory and cores. */
  concurrency: number;
  concurrencyAuto: boolean;
  checkedAt: number;
}

export function decodeHost(raw: unknown): Host {
  if (!isObject(raw) || typeof raw.id !== 'string' || typeof raw.name !== 'string' || typeof raw.state !== 'string') {
    throw new DecodeError('host: expected {id, name, state, ...}');
  }
  return raw as unknown as Host;
}

export class HostsApi {
  constructor(
    private readonly request: Request,
    private readonly fetchFn?: FetchFn,
  ) {}

  /**
   * Installs a runtime on a host through the host's own install stream
   * (npm or pipx there), calling onEvent for each event; settles when the
   * stream ends. A refusal (host not ready, unknown runtime, an install
   * already going there) rejects with the backend's words.
   */
  async install(id: string, runtime: string, onEvent: (ev: InstallEvent) => void): Promise<void> {
    const opts: Parameters<typeof postSse>[0] = {
      url: `/api/hosts/${encodeURIComponent(id)}/runtimes/${encodeURIComponent(runtime)}/install`,
      body: {},
      onMessage: (m) => {
        const ev = parseInstallEvent(m.data);
        if (ev) onEvent(ev);
      },
    };
    if (this.fetchFn) opts.fetch = this.fetchFn;
    await postSse(opts);
  }

  async list(signal?: AbortSignal): Promise<Host[]> {
    const raw = await this.request('GET', '/api/hosts', undefined, signal);
    if (!isObject(raw) || !Array.isArray(raw.hosts)) throw new DecodeError('hosts: expected {hosts: [...]}');
    return raw.hosts.map(decodeHost);
  }

  async add(destination: string, name: string): Promise<Host> {
    const raw = await this.request('POST', '/api/hosts', { destination, name });
    return decodeHost(isObject(raw) ? raw.host : raw);
  }

  async trust(id: string, fingerprint: string): Promise<Host> {
    const raw = await this.request('POST', `/api/hosts/${encodeURIComponent(id)}/trust`, { fingerprint });
    return decodeHost(isObject(raw) ? raw.host : raw);
  }

  /** Renames a host or sets its concurrency (0: from its memory and cores). */
  async update(id: string, patch: { name?: string; concurrency?: number }): Promise<Host> {
    const raw = await this.request('PATCH', `/api/hosts/${encodeURIComponent(id)}`, patch);
    return decodeHost(isObject(raw) ? raw.host : raw);
  }

  async check(id: string): Promise<void> {
    await this.request('POST', `/api/hosts/${encodeURIComponent(id)}/check`);
  }

  async remove(id: string): Promise<void> {
    await this.request('DELETE', `/api/hosts/${encodeURIComponent(id)}`);
  }
}

export const hostsApi = new HostsApi(jsonRequest());
