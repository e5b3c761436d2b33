import { describe, expect, it } from 'vitest';
import { makeRun } from '../../lib/testing/fixtures';
import { CRITIC_OPTIONS, criticNote, runRoleLabel } from './critic';

describe('critic settings', () => {
  it('offers auto, always and never, auto first', () => {
    expect(CRITIC_OPTIONS.map((o) => o.value)).toEqual(['auto', 'on', 'off']);
    expect(CRITIC_OPTIONS[0]?.label).toBe('Auto (review risky changes)');
  });

  it('says what auto means when the team turned the critic off', () => {
    expect(criticNote('auto', false)).toMatch(/auto means no review for this team/);
    expect(criticNote('auto', true)).toMatch(/risky/);
    expect(criticNote('auto', null)).toMatch(/risky/);
    // A task's own on or off wins over its team.
    expect(criticNote('on', false)).toMatch(/every change after its verify command passes, before it goes to review/);
    expect(criticNote('off', true)).toMatch(/never/);
  });

  it('says the critic runs only after a verify command passed, as the supervisor does', () => {
    for (const n of [criticNote('on', true), criticNote('auto', true), criticNote('auto', null)]) {
      expect(n).toMatch(/after its verify command passes/);
      expect(n).toMatch(/no verify command .* there is no review/);
    }
    expect(criticNote('auto', true)).not.toMatch(/before it is done/);
    expect(criticNote('off', true)).toMatch(/never/);
  });

  it('labels the critic’s review runs only', () => {
    expect(runRoleLabel(makeRun({ role: 'critic' }))).toBe('Critic review');
    expect(runRoleLabel(makeRun({ role: 'task' }))).toBe('');
    expect(runRoleLabel(makeRun({}))).toBe('');
  });
});
