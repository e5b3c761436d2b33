// The first run's one button, "Create my team": store the provider's key
// the way the Runtimes panel does (connectKey checks it with the provider
// before storing it; a local Ollama goes through connectOllama, which
// checks and saves its address instead), then seed the native team. Any
// failure stops the flow with its words, and nothing after it runs.

import { describeError } from '../../lib/api/errors';
import type { OnboardingProvider, OnboardingSpecialist, SeedAnswer, SeedRequest } from '../../lib/api/teamTypes';
import type { ProviderKey } from '../../lib/api/types';
import { connectKey, type ConnectClient } from '../runtimes/connectFlow';
import { connectOllama, type OllamaClient } from '../runtimes/ollamaFlow';

/** The calls the flow makes: the ApiClient, or a fake in tests. */
export type WelcomeClient = ConnectClient &
  OllamaClient & {
    onboarding: { seedNativeTeam(req: SeedRequest): Promise<SeedAnswer> };
  };

export interface WelcomeInput {
  provider: OnboardingProvider;
  apiKey: string;
  /** Ollama's address as typed ("" for the saved one, else Ollama's default). */
  ollamaUrl?: string;
  /** OLLAMA_BASE_URL is set (it wins over a typed address). */
  ollamaFromEnv?: boolean;
  model?: string;
  repoPath?: string;
  /** Runtimes the person ticked; only ready ones are sent. */
  specialists: readonly string[];
  /** The specialists the backend offered, to keep only the ready ones. */
  offered: readonly OnboardingSpecialist[];
}

export type WelcomeStage = 'verify' | 'connect' | 'seed';

export type WelcomeOutcome = ({ ok: true } & SeedAnswer) | { ok: false; stage: 'input' | WelcomeStage; error: string };

/** The specialists a seed may name: ticked and ready, in the order offered. */
export function readySpecialists(offered: readonly OnboardingSpecialist[], ticked: readonly string[]): string[] {
  return offered.filter((s) => s.ready && ticked.includes(s.runtime)).map((s) => s.runtime);
}

/** The provider the welcome starts on: one already connected, else Anthropic, else the first. */
export function defaultProvider(providers: readonly OnboardingProvider[]): OnboardingProvider | null {
  return providers.find((p) => p.connected) ?? providers.find((p) => p.id === 'anthropic') ?? providers[0] ?? null;
}

function asKey(p: OnboardingProvider): ProviderKey {
  return { id: p.id, name: p.name, envVar: null, keyless: p.keyless, connected: p.connected, source: null };
}

export async function createMyTeam(
  client: WelcomeClient,
  input: WelcomeInput,
  onStage: (stage: WelcomeStage) => void = () => {},
): Promise<WelcomeOutcome> {
  const p = input.provider;
  const key = input.apiKey.trim();
  if (p.keyless) {
    onStage('verify');
    const out = await connectOllama(client, input.ollamaUrl ?? '', input.ollamaFromEnv ?? false);
    if (!out.ok) return { ok: false, stage: 'verify', error: out.error };
  } else if (key !== '' || !p.connected) {
    // A provider already connected keeps its stored key when none is pasted.
    const out = await connectKey(
      client,
      { runtimeId: 'clawboo-native', provider: asKey(p), envVar: `${p.name} API key`, apiKey: key, verify: true },
      onStage,
    );
    if (!out.ok) return { ok: false, stage: out.stage, error: out.error };
  }

  onStage('seed');
  const req: SeedRequest = { provider: p.id, specialists: readySpecialists(input.offered, input.specialists) };
  const model = input.model?.trim();
  if (model) req.model = model;
  const repo = input.repoPath?.trim();
  if (repo) req.repoPath = repo;
  try {
    return { ok: true, ...(await client.onboarding.seedNativeTeam(req)) };
  } catch (err) {
    return { ok: false, stage: 'seed', error: describeError(err) };
  }
}
