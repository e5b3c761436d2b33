import { describe, expect, it } from 'vitest';
import { DecodeError, decodeStartRun } from './decode';
import { ApiError } from './errors';
import { jsonRequest } from './mergeClient';
import { decodeLedger, QuotaApi, quotaRefusal } from './quota';

const ledger = {
  threshold: 95,
  windows: [
    {
      runtime: 'claude-code',
      account: 'max',
      window: 'five_hour',
      status: 'allowed_warning',
      utilization: 0.97,
      resetsAt: 1_700_000_000_000,
      seenAt: 1_699_999_000_000,
      source: 'rate_limit_event',
      reset: false,
    },
    { runtime: 'codex', account: '', window: 'seven_day', status: 'allowed', utilization: null, resetsAt: null, seenAt: 5, source: '', reset: true },
  ],
  silent: [{ runtime: 'openclaw', why: 'OpenClaw reports no usage windows' }],
  deferred: [
    {
      id: 'D1',
      kind: 'task',
      taskId: 'T1',
      title: 'Fix login',
      runtime: 'claude-code',
      window: 'five_hour',
      until: 1_700_000_000_000,
      reason: 'Claude Code five-hour window at 97 %, resets 14:20',
      createdAt: 4,
    },
  ],
  limits: [{ scope: 'team', scopeId: 'TEAM1', runtime: '', window: 'seven_day', maxPercent: 80, createdAt: 3 }],
};

/** A QuotaApi over a fake fetch that answers by "METHOD url" and records what was asked. */
function fake(answers: Record<string, { status?: number; body?: unknown }>) {
  const seen: { url: string; method: string; body?: unknown }[] = [];
  const api = new QuotaApi(
    jsonRequest(async (url, init) => {
      seen.push({ url: String(url), method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined });
      const a = answers[`${init?.method} ${url}`];
      if (!a) return new Response('{"error":"not here"}', { status: 404 });
      if (a.status === 204) return new Response(null, { status: 204 });
      return new Response(JSON.stringify(a.body), { status: a.status ?? 200 });
    }),
  );
  return { api, seen };
}

describe('quota decoding', () => {
  it('decodes the ledger, its windows, silent runtimes, deferrals and budgets', () => {
    const l = decodeLedger(ledger);
    expect(l.threshold).toBe(95);
    // The backend sends clearsAt only for a rejection that named no reset time.
    expect(l.windows[0]).toEqual({ ...ledger.windows[0], clearsAt: null });
    expect(decodeLedger({ ...ledger, windows: [{ ...ledger.windows[0], status: 'rejected', resetsAt: null, clearsAt: 1_700_000_900_000 }] }).windows[0]?.clearsAt).toBe(
      1_700_000_900_000,
    );
    expect(l.windows[1]).toMatchObject({ utilization: null, resetsAt: null, reset: true, account: '' });
    expect(l.silent).toEqual([{ runtime: 'openclaw', why: 'OpenClaw reports no usage windows' }]);
    expect(l.deferred[0]).toMatchObject({ id: 'D1', kind: 'task', taskId: 'T1', until: 1_700_000_000_000 });
    expect(l.deferred[0]).not.toHaveProperty('teamId');
    expect(l.limits).toEqual([{ scope: 'team', scopeId: 'TEAM1', runtime: '', window: 'seven_day', maxPercent: 80 }]);
  });

  it('takes nulls and missing lists as empty', () => {
    expect(decodeLedger({ threshold: 90, windows: null })).toEqual({ threshold: 90, windows: [], silent: [], deferred: [], limits: [] });
  });

  it('says clearly what is wrong with a bad answer', () => {
    expect(() => decodeLedger({ windows: [] })).toThrow(/quota is not \{threshold/);
    expect(() => decodeLedger({ threshold: 95, windows: [{ runtime: 'x', window: 'five_hour', status: 'maybe' }] })).toThrow(DecodeError);
    expect(() => decodeLedger({ threshold: 95, windows: [{ runtime: 'x', window: 'five_hour', status: 'maybe' }] })).toThrow(/unknown status/);
    expect(() => decodeLedger({ threshold: 95, deferred: [{ id: 'D' }] })).toThrow(/deferral D has no until/);
    expect(() => decodeLedger({ threshold: 95, limits: [{ scope: 'mission', scopeId: 'x', window: 'w', maxPercent: 1 }] })).toThrow(/unknown scope/);
  });
});

describe('QuotaApi', () => {
  it('reads the ledger', async () => {
    const { api, seen } = fake({ 'GET /api/quota': { body: ledger } });
    expect((await api.ledger()).deferred).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/quota' });
  });

  it('reads and saves the threshold; a refusal keeps the backend words', async () => {
    const { api, seen } = fake({
      'GET /api/settings/quota-threshold': { body: { percent: 95 } },
      'PUT /api/settings/quota-threshold': { body: { percent: 90 } },
    });
    expect(await api.threshold()).toBe(95);
    expect(await api.setThreshold(90)).toBe(90);
    expect(seen[1]).toMatchObject({ method: 'PUT', body: { percent: 90 } });

    const bad = fake({ 'PUT /api/settings/quota-threshold': { status: 400, body: { error: 'percent must be 1 to 100' } } });
    await expect(bad.api.setThreshold(0)).rejects.toMatchObject({ status: 400, message: 'percent must be 1 to 100' });
  });

  it('saves and deletes a quota budget', async () => {
    const limit = { scope: 'agent', scopeId: 'A1', runtime: 'claude-code', window: 'seven_day', maxPercent: 80 } as const;
    const { api, seen } = fake({
      'PUT /api/quota/limits': { body: { ...limit, createdAt: 1 } },
      'DELETE /api/quota/limits?scope=agent&scopeId=A1&runtime=claude-code&window=seven_day': { status: 204 },
    });
    expect(await api.setLimit(limit)).toEqual(limit);
    expect(seen[0]!.body).toEqual(limit);
    await api.deleteLimit(limit);
    expect(seen[1]!.method).toBe('DELETE');
  });

  it('takes a limit answered as {limit}', async () => {
    const limit = { scope: 'team', scopeId: 'T', runtime: '', window: 'five_hour', maxPercent: 50 } as const;
    const { api } = fake({ 'PUT /api/quota/limits': { body: { limit } } });
    expect(await api.setLimit(limit)).toEqual(limit);
  });

  it('cancels a deferral by id', async () => {
    const { api, seen } = fake({ 'DELETE /api/quota/deferred/D%201': { status: 204 } });
    await api.cancelDeferred('D 1');
    expect(seen[0]!.url).toBe('/api/quota/deferred/D%201');
  });
});

describe('quotaRefusal', () => {
  it('reads a governor refusal with its deferral', () => {
    const body = { ok: false, reason: 'quota', error: 'Mock five-hour window at 97 %, resets 14:20', deferred: { id: 'D1', until: 42 } };
    const err = new ApiError(422, body.error, 'quota', body);
    expect(quotaRefusal(err)).toEqual({ message: body.error, deferredId: 'D1', until: 42 });
  });

  it('reads one without a deferral, and ignores other errors', () => {
    expect(quotaRefusal(new ApiError(422, 'spent', 'quota', { reason: 'quota' }))).toEqual({ message: 'spent', deferredId: '', until: null });
    expect(quotaRefusal(new ApiError(422, 'paused', 'budget_paused'))).toBeNull();
    expect(quotaRefusal(new Error('x'))).toBeNull();
  });
});

describe('a routed run answer', () => {
  it('says where the governor routed the run from and why', () => {
    const why = 'Claude Code five-hour window rejected, resets 14:20; routed to Mock (fault injection)';
    expect(decodeStartRun({ runId: 'R1', runtime: 'clawboo-mock', routedFrom: 'claude-code', why })).toEqual({
      runId: 'R1',
      runtime: 'clawboo-mock',
      routedFrom: 'claude-code',
      why,
    });
  });

  it('is the bare run id when not routed', () => {
    expect(decodeStartRun({ runId: 'R1' })).toEqual({ runId: 'R1' });
    expect(decodeStartRun({ runId: 'R1', routedFrom: '' })).toEqual({ runId: 'R1' });
  });
});
