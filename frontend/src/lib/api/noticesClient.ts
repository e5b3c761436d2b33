// Phone notices through ntfy (backend/api/notices.go): the topic URL an
// approval or a finished task is pushed to ("" = off), and a test notice.
// Refusals come back as ApiError in the backend's words (a URL holding a
// user:password, one that is not http(s), a server that refused the test).

import { DecodeError, isObject } from './decode';
import { jsonRequest } from './mergeClient';

type Request = ReturnType<typeof jsonRequest>;

const NTFY = '/api/settings/ntfy';

export function decodeNtfyUrl(v: unknown): string {
  if (!isObject(v) || typeof v.url !== 'string') throw new DecodeError('unexpected response from the backend: the ntfy setting is not {url}');
  return v.url;
}

export class NoticesApi {
  constructor(private readonly request: Request) {}

  /** The saved ntfy topic URL ("" when notices are off). */
  async url(signal?: AbortSignal): Promise<string> {
    return decodeNtfyUrl(await this.request('GET', NTFY, undefined, signal));
  }

  /** Saves the topic URL ("" turns notices off); answers it as saved. */
  async setUrl(url: string): Promise<string> {
    return decodeNtfyUrl(await this.request('PUT', NTFY, { url }));
  }

  /** Sends one test notice to the saved topic; throws the server's failure in words. */
  async test(): Promise<void> {
    await this.request('POST', `${NTFY}/test`);
  }
}

export const noticesApi = new NoticesApi(jsonRequest());
