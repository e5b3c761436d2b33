// Test fixtures shared by the unit tests: one place that knows every field a
// Run (or a Task) carries, so a new field is added once.
import type { Task } from '../api/boardTypes';
import type { ProviderKey, Run, RuntimeEntry } from '../api/types';

export function makeRun(over: Partial<Run> = {}): Run {
  return {
    id: 'r',
    runtimeId: 'clawboo-mock',
    agentId: null,
    taskId: null,
    teamId: null,
    model: null,
    title: 't',
    status: 'running',
    doneReason: null,
    summary: '',
    error: '',
    costUsd: null,
    costKind: null,
    inputTokens: 0,
    outputTokens: 0,
    lastSeq: 0,
    createdAt: 1,
    startedAt: null,
    endedAt: null,
    ...over,
  };
}

/** A catalog runtime entry: Claude Code, not installed, unless overridden. */
export function makeRuntime(over: Partial<RuntimeEntry> = {}): RuntimeEntry {
  return {
    id: 'claude-code',
    name: 'Claude Code',
    family: 'cli',
    builtIn: false,
    authKind: 'api-key',
    envVar: 'ANTHROPIC_API_KEY',
    altEnvVars: [],
    installCommand: 'npm install -g @anthropic-ai/claude-code@2',
    docsUrl: 'https://example.invalid/docs',
    healthBin: 'claude',
    loginCommand: null,
    providers: ['anthropic'],
    participantKind: 'agent',
    capabilities: {
      streaming: true,
      mcp: true,
      worktrees: true,
      resume: true,
      toolApproval: true,
      steering: true,
      modelChange: false,
      runtimeClass: 'wrapped-oneshot',
      models: [],
    },
    health: { ok: false, message: 'claude not found' },
    installed: false,
    binPath: null,
    hasCredential: false,
    credentialSource: null,
    loggedIn: false,
    disconnected: false,
    connectionState: 'not-installed',
    canRun: false,
    installing: false,
    keys: [{ id: 'anthropic', name: 'Anthropic', envVar: 'ANTHROPIC_API_KEY', keyless: false, connected: false, source: null }],
    ...over,
  };
}

/** An ACP agent's entry: a person's own, installed and ready, unless overridden. */
export function makeAcpRuntime(over: Partial<RuntimeEntry> = {}): RuntimeEntry {
  return makeRuntime({
    id: 'acp-my-agent',
    name: 'My agent',
    family: 'acp',
    authKind: 'agent-login',
    envVar: null,
    installCommand: null,
    healthBin: '/opt/my-agent',
    providers: [],
    keys: [],
    installed: true,
    canRun: true,
    connectionState: 'ready',
    health: { ok: true },
    acp: { command: '/opt/my-agent', args: ['--acp'], envVars: [], custom: true },
    ...over,
  });
}

/** A provider key slot. */
export function makeKey(id: string, over: Partial<ProviderKey> = {}): ProviderKey {
  return {
    id,
    name: id,
    envVar: `${id.toUpperCase()}_API_KEY`,
    keyless: false,
    connected: false,
    source: null,
    ...over,
  };
}

/** A board task: a code task in To do, unless overridden. */
export function makeTask(over: Partial<Task> = {}): Task {
  return {
    id: 't1',
    title: 'a task',
    description: '',
    status: 'todo',
    priority: 0,
    kind: 'code',
    teamId: null,
    parentId: null,
    rootId: over.id ?? 't1',
    depth: 0,
    repoPath: null,
    baseRef: null,
    verifyCommand: null,
    critic: 'auto',
    secrets: [],
    assigneeAgentId: null,
    assigneeRuntime: null,
    runId: null,
    heartbeatAt: null,
    verification: null,
    override: null,
    dependsOn: [],
    createdAt: 1,
    updatedAt: 1,
    completedAt: null,
    ...over,
  };
}

/** A room post: an agent's reply, unless overridden. */
export function makePost(seq: number, over: Partial<import('../api/teamTypes').Post> = {}): import('../api/teamTypes').Post {
  return {
    seq,
    teamId: 'team-1',
    authorAgentId: 'lead-1',
    authorName: 'Lead',
    kind: 'peer',
    body: `post ${seq}`,
    assignee: null,
    assigneeName: null,
    taskId: null,
    createdAt: 1_700_000_000_000 + seq,
    ...over,
  };
}
