// The first run's one button, "Create my team": check the repository (when
// one is given) before anything else, store the provider's key the way the
// Runtimes panel does (connectKey checks it with the provider before
// storing it; a local Ollama goes through connectOllama, which checks and
// saves its address instead), then seed the native team. Any failure stops
// the flow with its words, and nothing after it runs; a refused repository
// is said at its field and changes nothing. The demo team (the mock
// runtime, no key) is the same flow without the key.

import { ApiError, describeError } from '../../lib/api/errors';
import type { DemoSeedRequest, OnboardingProvider, OnboardingSpecialist, SeedAnswer, SeedRequest } from '../../lib/api/teamTypes';
import type { ProviderKey } from '../../lib/api/types';
import { connectKey, type ConnectClient } from '../runtimes/connectFlow';
import { connectOllama, type OllamaClient } from '../runtimes/ollamaFlow';

/** The calls the flow makes: the ApiClient, or a fake in tests. */
export type WelcomeClient = ConnectClient &
  OllamaClient & {
    onboarding: {
      seedNativeTeam(req: SeedRequest): Promise<SeedAnswer>;
      seedDemoTeam(req: DemoSeedRequest): Promise<SeedAnswer>;
      checkRepo(repoPath: string): Promise<void>;
    };
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
  /** The Coder may ask to run commands (every one asked first); off unless ticked. */
  coderShell?: boolean;
}

export type WelcomeStage = 'repo' | 'verify' | 'connect' | 'seed';

/** A failure; field 'repoPath' when the words are about the repository (shown at that field). */
export type WelcomeOutcome = ({ ok: true } & SeedAnswer) | { ok: false; stage: 'input' | WelcomeStage; error: string; field?: 'repoPath' };

/** The words of a refused repository (a 400 with reason bad_repository), or "" for any other error. */
export function repoRefusal(err: unknown): string {
  return err instanceof ApiError && err.reason === 'bad_repository' ? err.message : '';
}

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

type Failure = Extract<WelcomeOutcome, { ok: false }>;

/** Checks the repository, if one is given; a refusal (or a failed check) stops the flow before anything is stored. */
async function checkRepo(client: WelcomeClient, repo: string, onStage: (stage: WelcomeStage) => void): Promise<Failure | null> {
  if (!repo) return null;
  onStage('repo');
  try {
    await client.onboarding.checkRepo(repo);
    return null;
  } catch (err) {
    const why = repoRefusal(err);
    return why ? { ok: false, stage: 'input', field: 'repoPath', error: why } : { ok: false, stage: 'repo', error: describeError(err) };
  }
}

/** A seed's failure, at the repository field when it is about the repository. */
function seedFailure(err: unknown): Failure {
  const why = repoRefusal(err);
  return why ? { ok: false, stage: 'seed', field: 'repoPath', error: why } : { ok: false, stage: 'seed', error: describeError(err) };
}

export async function createMyTeam(
  client: WelcomeClient,
  input: WelcomeInput,
  onStage: (stage: WelcomeStage) => void = () => {},
): Promise<WelcomeOutcome> {
  const p = input.provider;
  const key = input.apiKey.trim();
  const repo = input.repoPath?.trim() ?? '';
  if (!p.keyless && key === '' && !p.connected) return { ok: false, stage: 'input', error: `Paste your ${p.name} API key first.` };
  const refused = await checkRepo(client, repo, onStage);
  if (refused) return refused;
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
  if (repo) req.repoPath = repo;
  if (input.coderShell) req.coderShell = true;
  try {
    return { ok: true, ...(await client.onboarding.seedNativeTeam(req)) };
  } catch (err) {
    return seedFailure(err);
  }
}

/** The keyless demo team on the mock runtime (offered only when the server runs it). */
export async function createDemoTeam(
  client: WelcomeClient,
  repoPath: string,
  onStage: (stage: WelcomeStage) => void = () => {},
): Promise<WelcomeOutcome> {
  const repo = repoPath.trim();
  const refused = await checkRepo(client, repo, onStage);
  if (refused) return refused;
  onStage('seed');
  try {
    return { ok: true, ...(await client.onboarding.seedDemoTeam(repo ? { repoPath: repo } : {})) };
  } catch (err) {
    return seedFailure(err);
  }
}
