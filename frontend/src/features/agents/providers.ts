// The providers a native agent can route to, in the backend's order, with
// each one's small default model (generated from backend/config's provider
// table into lib/generated/facts.ts, the page's only copy), and which have
// a key connected (the clawboo-native runtime entry's `keys`).

import type { Agent } from '../../lib/api/agentTypes';
import type { RuntimeEntry } from '../../lib/api/types';
import { PROVIDERS, type ProviderFact } from '../../lib/generated/facts';
import { NATIVE_RUNTIME_ID } from '../runtimes/catalog';

export { PROVIDERS };
export type ProviderInfo = ProviderFact;

/** The default provider of a new native agent when none has a key. */
export const DEFAULT_PROVIDER = 'anthropic';

export function providerInfo(id: string): ProviderInfo | undefined {
  return PROVIDERS.find((p) => p.id === id);
}

/** A provider's default model ("" for an unknown provider). */
export function defaultModel(provider: string): string {
  return providerInfo(provider)?.defaultModel ?? '';
}

/** A provider's display name, or its id when unknown. */
export function providerName(id: string): string {
  return providerInfo(id)?.name ?? id;
}

/** Provider ids with a key connected for the native runtime (Ollama: its base URL set). */
export function connectedProviders(runtimes: readonly RuntimeEntry[]): Set<string> {
  const native = runtimes.find((r) => r.id === NATIVE_RUNTIME_ID);
  return new Set((native?.keys ?? []).filter((k) => k.connected).map((k) => k.id));
}

/**
 * The provider a new agent's form starts on, as the backend picks one
 * (agents.PickProvider): the user's default, else the first connected one,
 * else Anthropic.
 */
export function initialProvider(connected: ReadonlySet<string>, preferred: string | null = null): string {
  if (preferred && providerInfo(preferred)) return preferred;
  return PROVIDERS.find((p) => connected.has(p.id))?.id ?? DEFAULT_PROVIDER;
}

/**
 * What an agent whose provider is not ready lacks, in words ("Anthropic key isn't connected"), never an id.
 * An agent carries only its runtime's id: the runtime's name and state come from the catalog's entries
 * (GET /api/runtimes), "Its runtime" until they are read.
 */
export function notReadyWords(a: Pick<Agent, 'runtime' | 'provider'>, runtimes: readonly RuntimeEntry[] = []): string {
  if (a.runtime === 'codex') return "Codex isn't signed in (run codex login)";
  if (a.runtime !== NATIVE_RUNTIME_ID) {
    const rt = runtimes.find((r) => r.id === a.runtime);
    const name = rt?.name ?? 'Its runtime';
    switch (rt?.connectionState) {
      case 'not-installed':
        return `${name} isn't installed`;
      case 'needs-login':
        return `${name} isn't signed in`;
      default:
        return `${name} isn't connected`;
    }
  }
  const p = providerInfo(a.provider);
  if (!p) return `provider '${a.provider}' is unknown`;
  return p.envVar ? `${p.name} key isn't connected` : `${p.name} isn't set up`;
}

/** The runtime's name from the catalog's entries (its id until they are read). */
export function runtimeName(id: string, runtimes: readonly Pick<RuntimeEntry, 'id' | 'name'>[]): string {
  return runtimes.find((r) => r.id === id)?.name ?? id;
}

/** What the Runtimes page lets a person do about an agent that is not ready: "install it" or "connect it". */
export function fixVerb(a: Pick<Agent, 'runtime'>, runtimes: readonly Pick<RuntimeEntry, 'id' | 'connectionState'>[]): string {
  return runtimes.find((r) => r.id === a.runtime)?.connectionState === 'not-installed' ? 'install it' : 'connect it';
}
