// Connecting a key: for the native runtime the key is checked with the
// provider first and stored only if the provider accepts it, so a typo
// never lands in the vault and never makes the card read "Ready".

import { describeError } from '../../lib/api/errors';
import type { ConnectionState, ConnectRequest, ConnectResult, HealthCheckResult, ProviderKey } from '../../lib/api/types';

/** The two calls the flow makes (the ApiClient, or a fake in tests). */
export interface ConnectClient {
  healthcheck(provider: string, apiKey?: string): Promise<HealthCheckResult>;
  connect(id: string, req: ConnectRequest): Promise<ConnectResult>;
}

export interface ConnectInput {
  runtimeId: string;
  /** The chosen provider slot; null when the runtime has one key and no picker. */
  provider: ProviderKey | null;
  /** The runtime's own key name, for the words when there is no provider. */
  envVar: string | null;
  apiKey: string;
  /** Check the key with the provider before storing it (native runtime). */
  verify: boolean;
}

export type ConnectOutcome =
  | { ok: true; state: ConnectionState; loginCommand?: string; warning?: string }
  | { ok: false; stage: 'input' | 'verify' | 'connect'; error: string };

/** Reports which step is running, for the button's words. */
export type ConnectStage = 'verify' | 'connect';

export async function connectKey(
  client: ConnectClient,
  input: ConnectInput,
  onStage: (stage: ConnectStage) => void = () => {},
): Promise<ConnectOutcome> {
  const keyless = input.provider?.keyless ?? false;
  const apiKey = input.apiKey.trim();
  if (!keyless && apiKey === '') {
    const name = input.provider?.envVar ?? input.envVar ?? 'API key';
    return { ok: false, stage: 'input', error: `Paste your ${name} first.` };
  }
  const providerId = input.provider?.id;

  if (input.verify && providerId) {
    onStage('verify');
    let hc: HealthCheckResult;
    try {
      hc = await client.healthcheck(providerId, keyless ? undefined : apiKey);
    } catch (err) {
      return { ok: false, stage: 'verify', error: describeError(err) };
    }
    if (!hc.ok) {
      return { ok: false, stage: 'verify', error: hc.error || 'The provider did not accept the key.' };
    }
  }

  onStage('connect');
  const req: ConnectRequest = {};
  if (!keyless) req.apiKey = apiKey;
  if (providerId) req.provider = providerId;
  try {
    const res = await client.connect(input.runtimeId, req);
    const out: ConnectOutcome = { ok: true, state: res.connectionState };
    if (res.loginCommand !== undefined) out.loginCommand = res.loginCommand;
    if (res.warning !== undefined) out.warning = res.warning;
    return out;
  } catch (err) {
    return { ok: false, stage: 'connect', error: describeError(err) };
  }
}
