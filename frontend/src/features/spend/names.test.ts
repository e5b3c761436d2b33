import { describe, expect, it } from 'vitest';
import { nameMap, spendLabel } from './names';

describe('spend names', () => {
  const agents = nameMap([
    { id: 'code-reviewer-k3x9q2', name: 'Code reviewer' },
    { id: 'a2', name: 'Writer' },
  ]);

  it('names a key by the agent, team or task it is', () => {
    expect(spendLabel('code-reviewer-k3x9q2', agents, 'No agent')).toBe('Code reviewer');
    expect(spendLabel('a2', agents, 'No agent')).toBe('Writer');
  });

  it('says "none" in words and marks an id it cannot name', () => {
    expect(spendLabel('', agents, 'No agent')).toBe('No agent');
    expect(spendLabel('01JABCDEFGHJKMNPQRSTVWXYZ0', agents, 'No agent')).toBe('01JA…VWXYZ0 (not found)');
  });
});
