import { describe, expect, it } from 'vitest';
import { DecodeError } from './decode';
import { ApiError } from './errors';
import { jsonRequest } from './mergeClient';
import { NoticesApi, decodeNtfyUrl } from './noticesClient';

/** A NoticesApi over a fake fetch that answers by method and path and records what was asked. */
function fake(answers: Record<string, { status?: number; body: unknown }>) {
  const seen: { url: string; method: string; body?: unknown }[] = [];
  const api = new NoticesApi(
    jsonRequest(async (url, init) => {
      seen.push({ url: String(url), method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined });
      const a = answers[`${init?.method} ${url}`];
      if (!a) return new Response('{"error":"not here"}', { status: 404 });
      return new Response(JSON.stringify(a.body), { status: a.status ?? 200 });
    }),
  );
  return { api, seen };
}

describe('notices client', () => {
  it('decodes {url} and refuses anything else', () => {
    expect(decodeNtfyUrl({ url: 'https://ntfy.sh/t' })).toBe('https://ntfy.sh/t');
    expect(decodeNtfyUrl({ url: '' })).toBe('');
    expect(() => decodeNtfyUrl({})).toThrow(DecodeError);
    expect(() => decodeNtfyUrl({ url: null })).toThrow(DecodeError);
    expect(() => decodeNtfyUrl(null)).toThrow(DecodeError);
  });

  it('reads, saves and turns off the topic URL, and sends a test notice', async () => {
    const { api, seen } = fake({
      'GET /api/settings/ntfy': { body: { url: '' } },
      'PUT /api/settings/ntfy': { body: { url: 'https://ntfy.sh/my-topic' } },
      'POST /api/settings/ntfy/test': { body: { sent: true } },
    });
    expect(await api.url()).toBe('');
    expect(await api.setUrl(' https://ntfy.sh/my-topic ')).toBe('https://ntfy.sh/my-topic');
    await api.test();
    expect(seen).toEqual([
      { url: '/api/settings/ntfy', method: 'GET', body: undefined },
      { url: '/api/settings/ntfy', method: 'PUT', body: { url: ' https://ntfy.sh/my-topic ' } },
      { url: '/api/settings/ntfy/test', method: 'POST', body: undefined },
    ]);
  });

  it('hands the backend refusals on in its words', async () => {
    const userinfo = 'invalid ntfy topic URL: it must not hold a user name or password (user:pass@)';
    const failed = 'the notice was not delivered: the ntfy server at ntfy.sh answered 403 Forbidden ("forbidden")';
    const { api } = fake({
      'PUT /api/settings/ntfy': { status: 400, body: { error: userinfo } },
      'POST /api/settings/ntfy/test': { status: 502, body: { error: failed } },
    });
    await expect(api.setUrl('https://a:b@ntfy.sh/t')).rejects.toEqual(new ApiError(400, userinfo));
    await expect(api.test()).rejects.toEqual(new ApiError(502, failed));
  });
});
