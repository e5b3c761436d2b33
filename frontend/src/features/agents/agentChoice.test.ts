import { describe, expect, it } from 'vitest';
import { agentOptions, agentText } from './agentChoice';

const agents = [
  { id: 'a3', name: 'Zed', runtime: 'claude-code', providerReady: true },
  { id: 'a1', name: 'Ada', runtime: 'mock', providerReady: false },
  { id: 'a2', name: 'Bea', runtime: 'codex' },
];

describe('agent options', () => {
  it('lists every agent by name, "none" first, when nothing is typed', () => {
    expect(agentOptions(agents, '', { none: 'Nobody yet' }).map((o) => o.name)).toEqual(['Nobody yet', 'Ada', 'Bea', 'Zed']);
    expect(agentOptions(agents, '').map((o) => o.id)).toEqual(['a1', 'a2', 'a3']);
  });

  it('narrows by name or runtime, in any case, and drops "none" while searching', () => {
    expect(agentOptions(agents, 'ZE', { none: 'x' }).map((o) => o.id)).toEqual(['a3']);
    expect(agentOptions(agents, 'claude').map((o) => o.id)).toEqual(['a3']);
    expect(agentOptions(agents, 'o', { none: 'x' }).map((o) => o.id)).toEqual(['a1', 'a2', 'a3']);
    expect(agentOptions(agents, 'nobody', { none: 'x' })).toEqual([]);
  });

  it('puts a group (a team’s members) first', () => {
    const o = agentOptions(agents, '', { members: ['a3'] });
    expect(o.map((x) => [x.id, x.member])).toEqual([
      ['a3', true],
      ['a1', false],
      ['a2', false],
    ]);
  });

  it('says whether an agent can run now', () => {
    expect(agentOptions(agents, 'ada')[0]?.ready).toBe(false);
    expect(agentOptions(agents, 'bea')[0]?.ready).toBe(true);
  });

  it('shows the chosen agent as name · runtime', () => {
    expect(agentText(agents[1])).toBe('Ada · mock');
    expect(agentText(undefined)).toBe('');
  });
});
