// The providers a native agent can route to, in the backend's order, with
// each one's small default model (both from backend/config/providers.go,
// the backend's one table; this is the UI's copy of it), and which have a
// key connected (the clawboo-native runtime entry's `keys`).

import type { Agent } from '../../lib/api/agentTypes';
import type { RuntimeEntry } from '../../lib/api/types';
import { NATIVE_RUNTIME_ID } from '../runtimes/catalog';

export interface ProviderInfo {
  id: string;
  name: string;
  /** The key's env var; null for keyless Ollama. */
  envVar: string | null;
  defaultModel: string;
}

export const PROVIDERS: readonly ProviderInfo[] = [
  { id: 'anthropic', name: 'Anthropic', envVar: 'ANTHROPIC_API_KEY', defaultModel: 'claude-haiku-4-5' },
  { id: 'openai', name: 'OpenAI', envVar: 'OPENAI_API_KEY', defaultModel: 'gpt-4o-mini' },
  { id: 'openrouter', name: 'OpenRouter', envVar: 'OPENROUTER_API_KEY', defaultModel: 'openai/gpt-4o-mini' },
  { id: 'ollama', name: 'Ollama (local)', envVar: null, defaultModel: 'llama3.2' },
  { id: 'google', name: 'Google Gemini', envVar: 'GEMINI_API_KEY', defaultModel: 'gemini-2.0-flash' },
  { id: 'xai', name: 'xAI', envVar: 'XAI_API_KEY', defaultModel: 'grok-3-mini' },
  { id: 'groq', name: 'Groq', envVar: 'GROQ_API_KEY', defaultModel: 'llama-3.3-70b-versatile' },
  { id: 'mistral', name: 'Mistral', envVar: 'MISTRAL_API_KEY', defaultModel: 'mistral-small-latest' },
  { id: 'together', name: 'Together AI', envVar: 'TOGETHER_API_KEY', defaultModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
  { id: 'cerebras', name: 'Cerebras', envVar: 'CEREBRAS_API_KEY', defaultModel: 'llama-3.3-70b' },
  { id: 'moonshot', name: 'Moonshot', envVar: 'MOONSHOT_API_KEY', defaultModel: 'moonshot-v1-8k' },
];

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

/** The catalog runtimes by name (an agent carries only its runtime's id). */
const RUNTIME_NAMES: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', hermes: 'Hermes', openclaw: 'OpenClaw' };

/** What an agent whose provider is not ready lacks, in words ("Anthropic key isn't connected"), never an id. */
export function notReadyWords(a: Pick<Agent, 'runtime' | 'provider'>): string {
  if (a.runtime === 'codex') return "Codex isn't signed in (run codex login)";
  if (a.runtime !== NATIVE_RUNTIME_ID) return `${RUNTIME_NAMES[a.runtime] ?? 'Its runtime'} isn't connected`;
  const p = providerInfo(a.provider);
  if (!p) return `provider '${a.provider}' is unknown`;
  return p.envVar ? `${p.name} key isn't connected` : `${p.name} isn't set up`;
}
