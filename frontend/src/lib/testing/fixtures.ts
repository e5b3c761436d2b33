// Test fixtures shared by the unit tests: one place that knows every field a
// Run carries, so a new field is added once.
import type { ProviderKey, Run, RuntimeEntry } from '../api/types';

export function makeRun(over: Partial<Run> = {}): Run {
  return {
    id: 'r',
    runtimeId: 'clawboo-mock',
    agentId: null,
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
