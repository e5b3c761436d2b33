// Wire types of the agents routes (backend/api/agents.go, backend/agents):
// spelled exactly as the Go structs' JSON. An agent of the native runtime
// carries its config; other runtimes' agents carry null there.

/** tools.tasks: the board read-write (true), not at all (false), or read-only. */
export type TaskAccess = true | false | 'read';

export interface NativeTools {
  memory: boolean;
  tools: boolean;
  tasks: TaskAccess;
  teamchat: boolean;
  /** Absent means off. */
  shell?: boolean;
  custom?: string[];
}

export interface Fallback {
  provider: string;
  model: string;
}

/** The native runtime's per-agent config (agents.Config). */
export interface NativeConfig {
  systemPrompt: string;
  primaryProvider: string;
  primaryModel: string;
  /** Omitted by the backend when empty. */
  fallbacks?: Fallback[];
  /** The key's env var NAME, never a key. */
  envVar: string;
  tools: NativeTools;
  participantKind: string;
  maxTurns: number;
  budgetUsd: number | null;
}

/** One agent as the API returns it. Times are Unix milliseconds. */
export interface Agent {
  id: string;
  name: string;
  runtime: string;
  provider: string;
  model: string;
  config: NativeConfig | null;
  budgetUsd: number | null;
  /** A run of this agent can route now (its provider's key, or its runtime, is ready). */
  providerReady: boolean;
  /** Where the quota governor routes its work when its runtime's window is spent; null for none. */
  fallbackRuntime?: string | null;
  /** The host its runs go to (Settings → Hosts); null: this computer. */
  hostId: string | null;
  warnings: string[];
  createdAt: number;
  updatedAt: number;
}

/** The body of a create or a patch (agents.Input). On a patch every field is optional; runtime cannot change. */
export interface AgentInput {
  name?: string;
  runtime?: string;
  provider?: string;
  model?: string;
  config?: Partial<NativeConfig>;
  /** null removes the agent's cap budget. */
  budgetUsd?: number | null;
  /** A runtime other than its own for when its window is spent; null (or "") for none. */
  fallbackRuntime?: string | null;
  /** The host its runs go to; null brings it back to this computer. An unknown host is refused (400). */
  hostId?: string | null;
}
