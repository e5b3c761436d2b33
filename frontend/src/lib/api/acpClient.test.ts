import { describe, expect, it } from 'vitest';
import { AcpAgentsApi } from './acpClient';
import { DecodeError } from './decode';
import { makeAcpRuntime } from '../testing/fixtures';

describe('ACP agents client', () => {
  it('adds an agent and answers its runtime entry; removes one by an escaped id', async () => {
    const calls: unknown[][] = [];
    const entry = makeAcpRuntime();
    const api = new AcpAgentsApi(async (...args: unknown[]) => {
      calls.push([args[0], args[1], args[2]]);
      return args[0] === 'POST' ? { runtime: entry } : null;
    });
    const req = { name: 'My agent', command: '/opt/my-agent', args: ['--acp'], envVars: ['MY_KEY'] };
    expect(await api.add(req)).toEqual(entry);
    await api.remove('acp-my agent');
    expect(calls).toEqual([
      ['POST', '/api/acp/agents', req],
      ['DELETE', '/api/acp/agents/acp-my%20agent', undefined],
    ]);
  });

  it('refuses an answer that is not a runtime', async () => {
    await expect(new AcpAgentsApi(async () => ({})).add({ name: 'a', command: 'b' })).rejects.toThrow(DecodeError);
    await expect(new AcpAgentsApi(async () => ({ runtime: { id: 'x' } })).add({ name: 'a', command: 'b' })).rejects.toThrow(DecodeError);
    const odd = { runtime: { ...makeAcpRuntime(), acp: { command: 1 } } };
    await expect(new AcpAgentsApi(async () => odd).add({ name: 'a', command: 'b' })).rejects.toThrow(DecodeError);
  });
});
