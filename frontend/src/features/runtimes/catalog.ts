// Plain words and small decisions about catalog runtimes, kept out of the
// components so they are tested once and read the same on every card.

import type { ConnectionState, CredentialSource, ProviderKey, RuntimeEntry, VaultInfo } from '../../lib/api/types';

/** The mock is a test runtime: it can run, but is never offered to install or connect. */
export const MOCK_RUNTIME_ID = 'clawboo-mock';
export const NATIVE_RUNTIME_ID = 'clawboo-native';

/** Words for a connection state (the card's badge). */
export function connectionLabel(state: ConnectionState): string {
  switch (state) {
    case 'ready':
      return 'Ready';
    case 'needs-auth':
      return 'Needs a key';
    case 'needs-login':
      return 'Needs sign-in';
    case 'not-installed':
      return 'Not installed';
  }
}

/** Where a credential comes from, as the card says it. */
export function sourceWords(source: CredentialSource | null): string {
  switch (source) {
    case 'env':
      return 'from your environment';
    case 'vault':
      return 'from the vault';
    case 'openclaw':
      return "from OpenClaw's .env";
    case 'login':
      return 'from your codex login';
    case 'setting':
      return 'at the saved address';
    case null:
      return '';
  }
}

/** The sentence above the cards about where pasted keys are kept. */
export function vaultWords(v: VaultInfo): { text: string; detail: string } {
  if (v.probing) return { text: 'Checking the keychain…', detail: '' };
  switch (v.backend) {
    case 'keychain':
      return { text: 'Keys are kept in your OS keychain.', detail: sentence(v.detail) };
    case 'file':
      return { text: 'Keys are kept in an encrypted file in your Clawboo folder.', detail: sentence(v.detail) };
    default:
      return { text: 'Keys cannot be stored right now.', detail: sentence(v.detail) };
  }
}

/** The backend's detail as a sentence: capitalised, with a full stop. */
function sentence(s: string): string {
  const t = s.trim();
  if (!t) return '';
  const cap = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(cap) ? cap : `${cap}.`;
}

/** "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The program an install command runs ("npm", "pipx"), for the card's sentence. */
export function installerName(command: string): string {
  return command.trim().split(/\s+/)[0] ?? '';
}

/**
 * The key slots a runtime reads that a connect form can fill: every
 * provider it lists, keyless ones included (Ollama), in the backend's order.
 * An agent that signs in by itself ("agent-login") may still take keys.
 */
export function connectableKeys(rt: Pick<RuntimeEntry, 'keys' | 'authKind'>): ProviderKey[] {
  return rt.authKind === 'api-key' || rt.authKind === 'agent-login' ? rt.keys : [];
}

/**
 * Other runtimes that lose a key when this one disconnects. Keys are kept
 * per environment variable, not per runtime, so deleting this runtime's
 * stored ANTHROPIC_API_KEY deletes it for every runtime reading that slot.
 */
export function sharedKeyLosers(rt: RuntimeEntry, all: readonly RuntimeEntry[]): { name: string; envVars: string[] }[] {
  const mine = new Set(rt.keys.filter((k) => k.source === 'vault' && k.envVar).map((k) => k.envVar));
  const out: { name: string; envVars: string[] }[] = [];
  for (const other of all) {
    // A runtime not installed here loses nothing a person would notice: it is not named.
    if (other.id === rt.id || !other.installed) continue;
    const envVars = other.keys
      .filter((k) => k.source === 'vault' && k.envVar !== null && mine.has(k.envVar))
      .map((k) => k.envVar as string);
    if (envVars.length) out.push({ name: other.name, envVars });
  }
  return out;
}

/**
 * The runtimes the run forms offer: those this build has an adapter for
 * and whose program is on this machine (built-in ones always are). One that
 * is installed but not yet connected is still offered: its run says what
 * is missing.
 */
export function runnable(list: readonly RuntimeEntry[]): RuntimeEntry[] {
  return list.filter((r) => r.canRun && r.installed);
}

/**
 * Whether an agent or a team member can be put on a runtime: this build
 * can run it, and, for an ACP agent, it is on this machine. The five
 * catalog ACP agents are listed installed or not; offering one that is
 * not installed would only make runs that fail. Other runtimes are offered
 * as before, installed or not (their cards say how to set them up).
 */
export function offerable(r: Pick<RuntimeEntry, 'canRun' | 'family' | 'installed'>): boolean {
  return r.canRun && (r.family !== 'acp' || r.installed);
}

/** The agent dialog's runtime choices: every runtime but ACP agents as before, and the ACP agents that can run here, apart. */
export function agentRuntimeChoices(list: readonly RuntimeEntry[]): { runtimes: RuntimeEntry[]; acp: RuntimeEntry[] } {
  return { runtimes: list.filter((r) => r.family !== 'acp'), acp: list.filter((r) => r.family === 'acp' && offerable(r)) };
}

/**
 * The teams a disconnect stops: those with a member on the runtime, by
 * name, in the order given.
 */
export function teamsOnRuntime(runtimeId: string, teams: readonly { name: string; members: readonly { runtime: string }[] }[]): string[] {
  return teams.filter((t) => t.members.some((m) => m.runtime === runtimeId)).map((t) => t.name);
}
