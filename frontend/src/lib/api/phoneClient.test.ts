import { describe, expect, it } from 'vitest';
import { DevicesApi } from './devicesClient';
import { ApiError } from './errors';
import { jsonRequest } from './mergeClient';
import { decodePhoneApprovalEvent, PhoneApi } from './phoneClient';

const approval = { id: 'a1', kind: 'command', title: 'Run make', command: 'make test', status: 'pending', createdAt: 1, expiresAt: 2 };

/** A fake fetch answering by "METHOD path", recording what was asked. */
function fakeFetch(answers: Record<string, { status?: number; body: unknown }>) {
  const seen: { url: string; method: string; body?: unknown; credentials?: string }[] = [];
  const fetchFn = async (url: string, init?: RequestInit): Promise<Response> => {
    seen.push({ url, method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined, credentials: init?.credentials });
    const a = answers[`${init?.method ?? 'GET'} ${url}`];
    if (!a) return new Response('{"error":"not found"}', { status: 404 });
    return new Response(JSON.stringify(a.body), { status: a.status ?? 200 });
  };
  return { fetchFn, seen };
}

describe('the phone client', () => {
  it('reads the approvals with who asks by name, and answers allow or deny', async () => {
    const { fetchFn, seen } = fakeFetch({
      'GET /m/api/approvals': { body: { approvals: [{ ...approval, agentName: 'Ada', teamName: 'Core', hostName: '' }] } },
      'POST /m/api/approvals/a1/resolve': { body: { approval: { ...approval, status: 'approved' } } },
    });
    const api = new PhoneApi(fetchFn);
    const list = await api.approvals();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: 'a1', command: 'make test', agentName: 'Ada', teamName: 'Core', hostName: '' });
    await api.resolve('a1', 'allow');
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/m/api/approvals/a1/resolve', body: { decision: 'allow' }, credentials: 'same-origin' });
  });

  it('says a phone that is not paired with the backend own words and status', async () => {
    const { fetchFn } = fakeFetch({ 'GET /m/api/runs': { status: 401, body: { error: 'this phone is not paired' } } });
    const err = await new PhoneApi(fetchFn).runs().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).message).toBe('this phone is not paired');
  });

  it('pairs with the code and the name, and reads the rooms and the quota', async () => {
    const { fetchFn, seen } = fakeFetch({
      'POST /m/api/pair': { body: { device: { id: 'd1', name: 'Pixel 8' } } },
      'GET /m/api/teams/t%2F1/chat': { body: { posts: [{ seq: 3, teamId: 't/1', authorName: 'You', kind: 'peer', body: 'hi', createdAt: 5 }] } },
      'GET /m/api/quota': { body: { threshold: 90, windows: [], runtimeNames: { 'claude-code': 'Claude Code', bad: 7 } } },
    });
    const api = new PhoneApi(fetchFn);
    expect(await api.pair('CODE', 'Pixel 8')).toEqual({ id: 'd1', name: 'Pixel 8' });
    expect(seen[0]!.body).toEqual({ code: 'CODE', name: 'Pixel 8' });
    expect((await api.posts('t/1'))[0]).toMatchObject({ seq: 3, authorName: 'You', body: 'hi' });
    expect(await api.quota()).toEqual({ threshold: 90, windows: [], runtimeNames: { 'claude-code': 'Claude Code' } });
  });

  it('decodes the stream approval events with their names', () => {
    const ev = decodePhoneApprovalEvent(JSON.stringify({ kind: 'requested', approval: { ...approval, agentName: 'Ada' } }));
    expect(ev.kind).toBe('requested');
    expect(ev.approval.agentName).toBe('Ada');
    expect(ev.approval.teamName).toBe('');
    expect(() => decodePhoneApprovalEvent('{"approval":{}}')).toThrow();
  });
});

describe('the devices client', () => {
  it('keeps only an SVG data URL as the QR code', async () => {
    const answer = (qr: unknown) =>
      new DevicesApi(
        jsonRequest(async () => new Response(JSON.stringify({ url: 'https://127.0.0.2:18795/pair#c', qr, fingerprint: 'AA:BB', expiresAt: 9 }))),
      ).pair('127.0.0.2');
    expect((await answer('data:image/svg+xml;base64,PHN2Zz4=')).qr).toBe('data:image/svg+xml;base64,PHN2Zz4=');
    expect((await answer('javascript:alert(1)')).qr).toBe('');
    expect((await answer(undefined)).qr).toBe('');
  });
});
