// The external MCP servers a person adds to clawboo-tools
// (backend/api/tools.go): a stdio server is a program that runs on this
// computer as the user, now and at every start, so its exact command line
// (shell-quoted by the backend) is what the page shows.

import { DecodeError, isObject } from './decode';
import { jsonRequest } from './mergeClient';

type Request = ReturnType<typeof jsonRequest>;

export type ToolTransport = 'stdio' | 'http';

export interface ToolServer {
  name: string;
  transport: ToolTransport;
  /** stdio: exactly what runs, shell-quoted; "" for an HTTP server. */
  commandLine: string;
  url: string;
  /** connected, connecting, failed, … in the backend's word. */
  status: string;
  error: string;
  tools: string[];
}

export interface NewToolServer {
  name: string;
  transport: ToolTransport;
  command?: string;
  args?: string[];
  env?: string[];
  url?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function decodeToolServer(v: unknown): ToolServer {
  if (!isObject(v) || typeof v.name !== 'string' || (v.transport !== 'stdio' && v.transport !== 'http')) {
    throw new DecodeError('tool server: expected {name, transport: stdio|http}');
  }
  return {
    name: v.name,
    transport: v.transport,
    commandLine: str(v.commandLine),
    url: str(v.url),
    status: str(v.status),
    error: str(v.error),
    tools: Array.isArray(v.tools) ? v.tools.filter((t): t is string => typeof t === 'string') : [],
  };
}

function decodeOne(raw: unknown): ToolServer {
  if (!isObject(raw)) throw new DecodeError('tool server: expected {server}');
  return decodeToolServer(raw.server);
}

const path = (name: string) => `/api/tools/servers/${encodeURIComponent(name)}`;

export class ToolsApi {
  constructor(private readonly request: Request) {}

  async list(signal?: AbortSignal): Promise<ToolServer[]> {
    const raw = await this.request('GET', '/api/tools/servers', undefined, signal);
    if (!isObject(raw) || !(Array.isArray(raw.servers) || raw.servers === null)) throw new DecodeError('tool servers: expected {servers: [...]}');
    return (raw.servers ?? []).map(decodeToolServer);
  }

  /** Saves and starts a server; one that fails to start is still added (its error says why). */
  async add(cfg: NewToolServer): Promise<ToolServer> {
    return decodeOne(await this.request('POST', '/api/tools/servers', cfg));
  }

  async remove(name: string): Promise<void> {
    await this.request('DELETE', path(name));
  }

  async reconnect(name: string): Promise<ToolServer> {
    return decodeOne(await this.request('POST', `${path(name)}/reconnect`));
  }
}

export const toolsApi = new ToolsApi(jsonRequest());
