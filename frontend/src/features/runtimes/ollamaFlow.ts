// Setting up a local Ollama: it has no key, so connecting it stores
// nothing; what makes it usable is its address, saved as a setting outside
// the secrets vault (OLLAMA_BASE_URL, when set, wins over it). The address
// is checked first and saved only when Ollama answers there, so a wrong
// one never reads "Ready" and the card never flickers.

import { describeError } from '../../lib/api/errors';
import type { ConnectionState, HealthCheckResult } from '../../lib/api/types';

/** Ollama's own default address. */
export const OLLAMA_DEFAULT_URL = 'http://localhost:11434';

/** The calls the flow makes (the ApiClient, or a fake in tests). */
export interface OllamaClient {
  ollamaURL(): Promise<string | null>;
  setOllamaURL(url: string | null): Promise<ConnectionState>;
  /** Checks Ollama at baseUrl, or at its configured address without one. */
  healthcheckOllama(baseUrl?: string): Promise<HealthCheckResult>;
  /** Seed 002's keyless connect: stores nothing, lifts an earlier Disconnect, answers the state. */
  connect(id: string, req: { provider: string }): Promise<{ connectionState: ConnectionState }>;
}

export type OllamaOutcome = { ok: true; state: ConnectionState; url: string } | { ok: false; error: string };

/**
 * Checks the typed address (else the saved one, else Ollama's default),
 * saves it once Ollama answers there, then connects (which stores nothing
 * but lifts an earlier Disconnect). With OLLAMA_BASE_URL set (fromEnv) it
 * checks and connects that address, and refuses a typed one: the
 * environment would win over it.
 */
export async function connectOllama(client: OllamaClient, typed: string, fromEnv = false): Promise<OllamaOutcome> {
  const check = (url?: string) =>
    client.healthcheckOllama(url).catch((err: unknown): HealthCheckResult => ({ ok: false, error: describeError(err) }));
  const connect = async (url: string): Promise<OllamaOutcome> => {
    try {
      return { ok: true, state: (await client.connect('clawboo-native', { provider: 'ollama' })).connectionState, url };
    } catch (err) {
      return { ok: false, error: describeError(err) };
    }
  };
  if (fromEnv) {
    if (typed.trim() !== '') {
      // A saved address would be ignored: the environment wins.
      return { ok: false, error: 'OLLAMA_BASE_URL is set and wins over a saved address: unset it to use another one.' };
    }
    const hc = await check();
    if (!hc.ok) return { ok: false, error: `Ollama does not answer at OLLAMA_BASE_URL: ${clip(hc.error)}.` };
    return connect('OLLAMA_BASE_URL');
  }
  let previous: string | null;
  try {
    previous = await client.ollamaURL();
  } catch (err) {
    return { ok: false, error: describeError(err) };
  }
  const url = typed.trim() || previous || OLLAMA_DEFAULT_URL;
  const hc = await check(url);
  if (!hc.ok) return { ok: false, error: `Ollama does not answer at ${url}: ${clip(hc.error)}. Nothing was saved.` };
  try {
    await client.setOllamaURL(url);
  } catch (err) {
    return { ok: false, error: describeError(err) };
  }
  return connect(url);
}

/** A check's error without its closing full stop, to sit inside a sentence. */
function clip(error: string | undefined): string {
  return (error || 'no answer').replace(/\.+$/, '');
}
