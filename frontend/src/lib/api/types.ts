// Wire types of the Clawboo HTTP API, spelled exactly as the backend's JSON
// (backend/api, backend/store, backend/executor). Keep them in step with the
// Go structs: these and boardTypes.ts (the board, budgets, spend, repos) are
// the only place the UI learns the API's shape.

/**
 * How a runtime signs in. "agent-login": the agent keeps its own login (its
 * loginCommand) that Clawboo cannot see, so it is ready once installed; it
 * may still list provider key slots, connected like an api-key runtime's.
 */
export type AuthKind = 'api-key' | 'oauth' | 'none' | 'agent-login';
/** What kind of runtime it is: a hand-adapted CLI, Clawboo's own loop, an Agent Client Protocol agent, or the test mock. */
export type RuntimeFamily = 'cli' | 'native' | 'acp' | 'mock';
export type ConnectionState = 'not-installed' | 'needs-auth' | 'needs-login' | 'ready';
/** Where a runtime's credential comes from ("login" is Codex's own sign-in). */
export type CredentialSource = 'env' | 'vault' | 'openclaw' | 'login' | 'setting';
/** Where one provider key comes from. */
/** Where a key comes from; 'setting' is Ollama's saved address (it has no key). */
export type KeySource = 'env' | 'vault' | 'openclaw' | 'setting';

/** How an ACP agent is started: a program and its arguments (never a shell line), and the keys it reads. */
export interface AcpCommand {
  command: string;
  args: string[];
  /** Names of the keys passed to it when set. */
  envVars: string[];
  /** A person added it (it can be removed); the catalog's are not. */
  custom: boolean;
}

/** A connectable runtime from the catalog. */
export interface RuntimeDescriptor {
  id: string;
  name: string;
  family: RuntimeFamily;
  builtIn: boolean;
  authKind: AuthKind;
  envVar: string | null;
  altEnvVars: string[];
  installCommand: string | null;
  docsUrl: string;
  healthBin: string | null;
  /** The terminal command that signs in (Codex: "codex login"). */
  loginCommand: string | null;
  /** Provider ids a key can be connected for, in the backend's order. */
  providers: string[];
  /** Family acp only. */
  acp?: AcpCommand;
}

/** POST /api/acp/agents: a person's own ACP agent. */
export interface AddAcpAgentRequest {
  name: string;
  /** A program on PATH or an absolute path; no shell syntax. */
  command: string;
  args?: string[];
  envVars?: string[];
}

export interface Capabilities {
  streaming: boolean;
  mcp: boolean;
  worktrees: boolean;
  resume: boolean;
  toolApproval: boolean;
  steering: boolean;
  modelChange: boolean;
  runtimeClass: string;
  contextWindowTokens?: number;
  models: string[];
}

/** One provider key slot of a runtime: never the key, only whether and where it is set. */
export interface ProviderKey {
  id: string;
  name: string;
  envVar: string | null;
  /** Needs no key (Ollama). */
  keyless: boolean;
  connected: boolean;
  source: KeySource | null;
}

/** A catalog runtime with its live state on this computer. */
export interface RuntimeEntry extends RuntimeDescriptor {
  participantKind: string;
  capabilities: Capabilities;
  health: { ok: boolean; message?: string };
  installed: boolean;
  binPath: string | null;
  hasCredential: boolean;
  credentialSource: CredentialSource | null;
  loggedIn: boolean;
  /** The user disconnected it: ambient keys do not count until the next connect. */
  disconnected: boolean;
  connectionState: ConnectionState;
  /** This build has the runtime's adapter and can run tasks on it. */
  canRun: boolean;
  /** An install of it is running (from any window). */
  installing: boolean;
  keys: ProviderKey[];
}

/** Where keys are kept. */
export interface VaultInfo {
  backend: 'keychain' | 'file' | 'none';
  /** Why the keychain was not used, in words; "" when it is. */
  detail: string;
  /** The keychain is still being tried. */
  probing: boolean;
}

export interface RuntimesResponse {
  runtimes: RuntimeEntry[];
  available: RuntimeDescriptor[];
  vault: VaultInfo;
}

export interface ConnectRequest {
  apiKey?: string;
  provider?: string;
}

export interface ConnectResult {
  ok: boolean;
  connectionState: ConnectionState;
  loginCommand?: string;
  /** Set when a key in the server's environment is used before the stored one. */
  warning?: string;
}

export interface HealthCheckResult {
  ok: boolean;
  error?: string;
}

/** One event of an install stream. */
export type InstallEvent =
  | { type: 'progress'; step: string; message: string }
  | { type: 'output'; line: string; stream: 'stdout' | 'stderr' }
  | { type: 'error'; code: string; message: string }
  | { type: 'complete'; success: boolean; warning?: string };

export interface Health {
  ok: boolean;
  version: string;
}

export type RunStatus = 'starting' | 'running' | 'succeeded' | 'failed' | 'aborted' | 'timed_out';
export type DoneReason = 'success' | 'max_turns' | 'aborted' | 'error';

/** How a run's or a charge's dollar figure was arrived at (backend/budget kinds). */
export type CostKind = 'reported' | 'local' | 'token-estimate' | 'char-estimate';

/** What a run is to the task it is listed on: its own work (and fix runs), or the critic's review of its change. */
export type RunRole = 'task' | 'critic';

/** One row of the runs ledger. Times are Unix milliseconds. */
export interface Run {
  id: string;
  runtimeId: string;
  agentId: string | null;
  /** The board task this run works on, if any. */
  taskId: string | null;
  teamId: string | null;
  model: string | null;
  title: string;
  /** The whole message the run was started with (bounded, secrets redacted); only in GET /api/runs/{id} and GET /api/runs?sessionKey=. */
  prompt?: string;
  status: RunStatus;
  doneReason: DoneReason | null;
  summary: string;
  error: string;
  costUsd: number | null;
  costKind: CostKind | null;
  inputTokens: number;
  outputTokens: number;
  lastSeq: number;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** Only in a task's run list (GET /api/board/{id}): the run's role there. */
  role?: RunRole;
  /** For a run a cap budget stopped (error "budget_paused:<scope>"): which budget, and its limit. */
  budgetStop?: { scope: string; scopeId: string; limitUsd: number | null };
  /** The host it ran on (Settings → Hosts); null: this computer. Absent from older servers. */
  hostId?: string | null;
}

export interface RunsPage {
  runs: Run[];
  nextCursor: string | null;
}

export interface StartRunRequest {
  message: string;
  context?: string;
  agentId?: string;
  wait?: boolean;
}

export type Phase = 'init' | 'thinking' | 'running' | 'turn-complete';
export type Channel = 'assistant' | 'reasoning';

/** A JSON value as it arrives (tool inputs are arbitrary JSON). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

interface EventBase {
  runId: string;
  seq: number;
  /** Unix milliseconds. */
  ts: number;
}

export interface StatusEvent extends EventBase {
  kind: 'status';
  phase: Phase;
  model?: string;
  detail?: string;
}
export interface TextDeltaEvent extends EventBase {
  kind: 'text-delta';
  /** Omitted by the backend when empty. */
  text?: string;
  channel?: Channel;
}
export interface ToolCallEvent extends EventBase {
  kind: 'tool-call';
  toolCallId: string;
  name: string;
  input?: JsonValue;
}
export interface ToolResultEvent extends EventBase {
  kind: 'tool-result';
  toolCallId: string;
  name?: string;
  output?: string;
  isError?: boolean;
}
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}
export interface CostEvent extends EventBase {
  kind: 'cost';
  costUsd?: number;
  usage?: Usage;
  model?: string;
  local?: boolean;
  estimated?: boolean;
}
export interface ErrorEvent extends EventBase {
  kind: 'error';
  code?: string;
  message: string;
  fatal?: boolean;
}
export type PlanStatus = 'pending' | 'in_progress' | 'completed';
export type PlanPriority = 'high' | 'medium' | 'low';
/** One step of an agent's plan. */
export interface PlanStep {
  content: string;
  status: PlanStatus;
  priority?: PlanPriority;
}
/** The agent's whole plan as it stands now (ACP's plan update); each replaces the last. */
export interface PlanEvent extends EventBase {
  kind: 'plan';
  plan: PlanStep[];
}
export interface DoneEvent extends EventBase {
  kind: 'done';
  reason: DoneReason;
  summary?: string;
}

/** One event of a run's stream, discriminated by kind. */
export type RunEvent =
  | StatusEvent
  | TextDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | CostEvent
  | ErrorEvent
  | PlanEvent
  | DoneEvent;

export const TERMINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'aborted', 'timed_out'];

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}
