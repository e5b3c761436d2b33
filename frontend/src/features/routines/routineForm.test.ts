import { describe, expect, it } from 'vitest';
import { QUICK_PICKS, emptyFields, fieldsOf, newSchedule, onceLocal, onceSpec, schedulePatch, templateOf } from './routineForm';
import { schedule } from './fixtures';

describe('once@ specs', () => {
  it('turns a datetime-local value into once@ with the local offset', () => {
    const s = onceSpec('2026-12-03T09:00');
    expect(s).toMatch(/^once@2026-12-03T09:00:00(Z|[+-]\d{2}:\d{2})$/);
    // The same instant as the browser read it.
    expect(new Date(s!.slice('once@'.length)).getTime()).toBe(new Date(2026, 11, 3, 9, 0).getTime());
    expect(onceSpec('2026-12-03T09:00:30')).toMatch(/^once@2026-12-03T09:00:30/);
  });

  it('refuses what is not a date-time', () => {
    for (const v of ['', '2026-12-03', 'tomorrow', '2026-02-31T09:00', '2026-13-01T09:00']) expect(onceSpec(v), v).toBeNull();
  });

  it('reads a once@ spec back for the date-time field', () => {
    expect(onceLocal(onceSpec('2026-12-03T09:00')!)).toBe('2026-12-03T09:00');
    expect(onceLocal('0 9 * * *')).toBe('');
    expect(onceLocal('once@garbage')).toBe('');
  });

  it('offers the quick picks the brief names', () => {
    expect(QUICK_PICKS.map((q) => q.spec)).toEqual(['@hourly', '0 9 * * *', '0 9 * * 1-5', '0 9 * * 1']);
  });
});

describe('the form to a request', () => {
  const filled = { ...emptyFields('Europe/Berlin'), agentId: 'bot', spec: ' @daily ', title: ' Triage ', kind: 'research' as const };

  it('builds a POST body with only what was given', () => {
    expect(newSchedule(filled)).toEqual({
      req: { agentId: 'bot', spec: '@daily', timezone: 'Europe/Berlin', template: { title: 'Triage', kind: 'research' } },
    });
    const all = newSchedule({ ...filled, description: 'Look at new issues', priority: '2', repoPath: ' /r ', model: 'gpt-x', maxUsd: '$0.50' });
    expect(all).toEqual({
      req: {
        agentId: 'bot',
        spec: '@daily',
        timezone: 'Europe/Berlin',
        template: { title: 'Triage', kind: 'research', description: 'Look at new issues', priority: 2, repoPath: '/r', model: 'gpt-x', maxUsd: 0.5 },
      },
    });
  });

  it('says what is missing or wrong, in words', () => {
    expect(newSchedule({ ...filled, agentId: '' })).toEqual({ error: 'Choose the agent that does the work.' });
    expect(newSchedule({ ...filled, spec: '  ' })).toMatchObject({ error: expect.stringMatching(/Say when it runs/) });
    expect(newSchedule({ ...filled, title: '' })).toMatchObject({ error: expect.stringMatching(/Give the task a title/) });
    expect(templateOf({ ...filled, priority: '1.5' })).toMatchObject({ error: expect.stringMatching(/whole number/) });
    expect(templateOf({ ...filled, maxUsd: '0' })).toMatchObject({ error: expect.stringMatching(/above 0/) });
    expect(templateOf({ ...filled, maxUsd: 'lots' })).toMatchObject({ error: expect.stringMatching(/above 0/) });
  });

  it('edits: the fields of a routine, and a PATCH that clears what was emptied', () => {
    const s = schedule('a');
    const f = fieldsOf(s);
    expect(f).toMatchObject({ agentId: 'nightly-bot', spec: '0 2 * * *', title: 'Bump dependencies', kind: 'code', priority: '', maxUsd: '0.5' });
    const p = schedulePatch(s, { ...f, maxUsd: '', model: '', spec: '0 3 * * *' });
    expect(p).toEqual({
      patch: {
        spec: '0 3 * * *',
        timezone: 'Europe/Berlin',
        template: { title: 'Bump dependencies', kind: 'code', description: '…', repoPath: '/home/me/app' },
      },
    });
  });
});
