// The user's named task secrets (backend/api/secrets.go): names come out,
// values only go in. A task names the ones it receives (`secrets` on the
// board's create and patch).

import { DecodeError, isObject } from './decode';
import { jsonRequest } from './mergeClient';

type Request = ReturnType<typeof jsonRequest>;

export interface SecretList {
  names: string[];
  /** Where they are kept: "keychain" or "file". */
  backend: string;
}

/** An environment variable name, as the backend accepts for a secret (its host-owned names aside). */
export const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,57}$/;

export function decodeSecretList(raw: unknown): SecretList {
  if (!isObject(raw) || !Array.isArray(raw.secrets)) throw new DecodeError('secrets: expected {secrets: [...]}');
  const names = raw.secrets.map((s: unknown) => {
    if (!isObject(s) || typeof s.name !== 'string') throw new DecodeError('secrets: each entry needs a name');
    return s.name;
  });
  return { names, backend: typeof raw.backend === 'string' ? raw.backend : '' };
}

export class SecretsApi {
  constructor(private readonly request: Request) {}

  async list(signal?: AbortSignal): Promise<SecretList> {
    return decodeSecretList(await this.request('GET', '/api/secrets', undefined, signal));
  }

  /** Stores (or replaces) a secret's value; the answer carries only its name. */
  async set(name: string, value: string): Promise<void> {
    await this.request('PUT', `/api/secrets/${encodeURIComponent(name)}`, { value });
  }

  async remove(name: string): Promise<void> {
    await this.request('DELETE', `/api/secrets/${encodeURIComponent(name)}`);
  }
}

export const secretsApi = new SecretsApi(jsonRequest());
