import { describe, expect, it } from 'vitest';
import { decodeAgent, decodeAgentAnswer, decodeAgents } from './agentDecode';
import { ApiClient } from './client';
import { DecodeError } from './decode';

const wire = {
  id: 'mock-buddy-abc234',
  name: 'Mock Buddy',
  runtime: 'clawboo-mock',
  provider: '',
  model: '',
  config: null,
  budgetUsd: null,
  providerReady: true,
  hostId: null,
  warnings: [],
  createdAt: 1,
  updatedAt: 1,
};

describe('agent decoding', () => {
  it('reads the list and fills what Go may leave out', () => {
    expect(decodeAgents({ agents: [wire] })).toEqual([wire]);
    expect(decodeAgents({ agents: null })).toEqual([]);
    const { warnings: _w, providerReady: _p, ...bare } = wire;
    expect(decodeAgent(bare)).toMatchObject({ warnings: [], providerReady: false });
    expect(decodeAgentAnswer({ agent: wire }).id).toBe(wire.id);
    // Its host: an id, or null (this computer) whether Go sent null, "" or nothing.
    expect(decodeAgent({ ...wire, hostId: '01HOST' }).hostId).toBe('01HOST');
    const { hostId: _h, ...older } = wire;
    expect(decodeAgent(older).hostId).toBeNull();
    expect(decodeAgent({ ...wire, hostId: '' }).hostId).toBeNull();
  });

  it('refuses what the views cannot use', () => {
    expect(() => decodeAgent({ ...wire, id: '' })).toThrow(DecodeError);
    expect(() => decodeAgent({ ...wire, config: 'x' })).toThrow(DecodeError);
    expect(() => decodeAgents({})).toThrow(DecodeError);
  });
});

describe('agents client', () => {
  it('posts a chat message and answers the run id; shows a refusal in the backend words', async () => {
    const calls: [string, RequestInit | undefined][] = [];
    const api = new ApiClient(async (url, init) => {
      calls.push([url, init]);
      if (url.endsWith('/chat')) return new Response(JSON.stringify({ runId: 'r1' }), { status: 202 });
      return new Response(JSON.stringify({ error: 'name is required' }), { status: 400 });
    });
    expect(await api.agents.chat('a b', '!ok hi')).toEqual({ runId: 'r1' });
    expect(calls[0]![0]).toBe('/api/agents/a%20b/chat');
    expect(JSON.parse(String(calls[0]![1]?.body))).toEqual({ message: '!ok hi' });
    await expect(api.agents.create({ name: '' })).rejects.toThrow('name is required');
  });

  it('reads and records the default native provider', async () => {
    const seen: string[] = [];
    const api = new ApiClient(async (url, init) => {
      seen.push(`${init?.method} ${url} ${String(init?.body ?? '')}`);
      const body = init?.body ? (JSON.parse(String(init.body)) as { provider: string | null }) : { provider: null };
      return new Response(JSON.stringify(body), { status: 200 });
    });
    expect(await api.agents.defaultProvider()).toBeNull();
    expect(await api.agents.setDefaultProvider('google')).toBe('google');
    expect(await api.agents.setDefaultProvider(null)).toBeNull();
    expect(seen).toEqual([
      'GET /api/settings/default-native-provider ',
      'PUT /api/settings/default-native-provider {"provider":"google"}',
      'PUT /api/settings/default-native-provider {"provider":null}',
    ]);
  });
});
