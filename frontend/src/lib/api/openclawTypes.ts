// Wire types of the OpenClaw routes (backend/api/openclaw.go): spelled
// exactly as the Go structs' JSON. The Gateway token never crosses the wire;
// only whether one is set, its masked tail and where it comes from.

export type UrlSource = 'env' | 'settings' | '';
export type TokenSource = 'env' | 'vault' | 'openclaw' | '';

export interface OpenClawSettings {
  url: string;
  urlSource: UrlSource;
  tokenSet: boolean;
  /** "••••" and the token's last 4 characters; absent when no token is set. */
  tokenMasked?: string;
  tokenSource: TokenSource;
}

export type ConnectionStatus = 'unconfigured' | 'connecting' | 'starting' | 'connected' | 'error' | 'closed';

export interface OpenClawConnection {
  status: ConnectionStatus | string;
  url?: string;
  error?: string;
  serverVersion?: string;
  protocol?: number;
  deviceId?: string;
  connectedAt?: number;
  attempts: number;
  /** Unix ms of the next attempt; 0 or absent when none is planned. */
  nextRetryAt?: number;
}

export interface OpenClawAgent {
  id: string;
  workspace?: string;
  model?: string;
}

export interface OpenClawStatus {
  connection: OpenClawConnection;
  settings: OpenClawSettings;
  health: { ok: boolean; message?: string };
  defaultAgent?: string;
  agents: OpenClawAgent[];
  liveRuns: number;
  pendingApprovals: number;
  mcpServers: Record<string, string>;
  mcpRegistered: boolean;
}

/** One tool event of an OpenClaw run Clawboo did not start. */
export interface OpenClawActivity {
  ts: number;
  sessionKey: string;
  agent: string;
  runId?: string;
  event: {
    kind: 'tool-call' | 'tool-result' | string;
    toolCallId: string;
    name?: string;
    input?: unknown;
    output?: string;
    isError?: boolean;
  };
}

export interface McpRegistration {
  servers: string[];
  hash?: string;
}
