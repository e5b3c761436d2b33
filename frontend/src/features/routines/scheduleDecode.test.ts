import { describe, expect, it } from 'vitest';
import {
  decodeFire,
  decodeFireAnswer,
  decodeFirePage,
  decodePreview,
  decodeSchedule,
  decodeScheduleAnswer,
  decodeScheduleEvent,
  decodeScheduleList,
} from '../../lib/api/scheduleDecode';
import { DecodeError } from '../../lib/api/decode';
import { T0, fire, schedule } from './fixtures';

describe('schedule decoding', () => {
  it('reads the contract example as sent', () => {
    const s = schedule('01J');
    expect(decodeSchedule(JSON.parse(JSON.stringify(s)))).toEqual(s);
    expect(decodeScheduleAnswer({ schedule: s })).toEqual(s);
  });

  it('fills what a Gateway job or an older server leaves out', () => {
    const s = decodeSchedule({ id: 'gw-1', spec: '*/5 * * * *', status: 'idle', template: {}, source: 'openclaw-gateway-cron', readOnly: true });
    expect(s).toMatchObject({
      agentId: '',
      teamId: null,
      timezone: '',
      description: '',
      template: { title: '', kind: 'code' },
      nextRunAt: null,
      nextRuns: [],
      lastOutcome: null,
      lastError: null,
      failures: 0,
      readOnly: true,
    });
  });

  it('refuses what the page cannot show', () => {
    const bad = [
      null,
      { spec: '* * * * *', status: 'idle', template: {} },
      { id: 'x', status: 'idle', template: {} },
      { id: 'x', spec: '@daily', template: {} },
      { id: 'x', spec: '@daily', status: 'idle' },
      { id: 'x', spec: '@daily', status: 'idle', template: {}, nextRunAt: 'soon' },
      { id: 'x', spec: '@daily', status: 'idle', template: {}, nextRuns: [1, 'two'] },
      { id: 'x', spec: '@daily', status: 'idle', template: {}, lastOutcome: 3 },
    ];
    for (const v of bad) expect(() => decodeSchedule(v), JSON.stringify(v)).toThrow(DecodeError);
  });

  it('reads the list with its sources', () => {
    const l = decodeScheduleList({
      schedules: [schedule('a')],
      sources: [
        { id: 'clawboo-routine', ok: true, writable: true },
        { id: 'openclaw-gateway-cron', ok: false, error: 'the Gateway is not connected', writable: false },
      ],
    });
    expect(l.schedules.map((s) => s.id)).toEqual(['a']);
    expect(l.sources).toEqual([
      { id: 'clawboo-routine', ok: true, writable: true },
      { id: 'openclaw-gateway-cron', ok: false, error: 'the Gateway is not connected', writable: false },
    ]);
    expect(decodeScheduleList({ schedules: [] }).sources).toEqual([]);
    expect(() => decodeScheduleList({ schedules: {} })).toThrow(DecodeError);
    expect(() => decodeScheduleList({ schedules: [], sources: [{ id: 'x' }] })).toThrow(DecodeError);
  });

  it('reads live events: a schedule changed, or one deleted', () => {
    expect(decodeScheduleEvent({ deleted: 'a' })).toEqual({ deleted: 'a' });
    expect(decodeScheduleEvent({ schedule: schedule('b') })).toEqual({ schedule: schedule('b') });
    expect(() => decodeScheduleEvent({})).toThrow(DecodeError);
    expect(() => decodeScheduleEvent({ deleted: '' })).toThrow(DecodeError);
  });
});

describe('fire decoding', () => {
  it('reads a fire, an empty run or task id as none', () => {
    expect(decodeFire(fire('f1'))).toEqual(fire('f1'));
    const f = decodeFire({ id: 'f2', scheduleId: 's1', dueAt: T0, outcome: 'skipped', reason: 'budget paused', runId: '', taskId: null });
    expect(f).toEqual({
      id: 'f2',
      scheduleId: 's1',
      dueAt: T0,
      startedAt: null,
      endedAt: null,
      outcome: 'skipped',
      reason: 'budget paused',
      runId: null,
      taskId: null,
      costUsd: null,
      manual: false,
    });
    expect(decodeFireAnswer({ fire: fire('f3', { manual: true }) }).manual).toBe(true);
  });

  it('refuses a fire without its ids, due time or outcome', () => {
    for (const v of [
      { scheduleId: 's', dueAt: 1, outcome: 'success' },
      { id: 'f', dueAt: 1, outcome: 'success' },
      { id: 'f', scheduleId: 's', outcome: 'success' },
      { id: 'f', scheduleId: 's', dueAt: 1 },
      { id: 'f', scheduleId: 's', dueAt: 1, outcome: 'success', costUsd: '0.1' },
      { id: 'f', scheduleId: 's', dueAt: 1, outcome: 'success', startedAt: 'now' },
    ]) {
      expect(() => decodeFire(v), JSON.stringify(v)).toThrow(DecodeError);
    }
  });

  it('reads a page, an empty cursor as the end', () => {
    expect(decodeFirePage({ fires: [fire('a')], nextCursor: 'c1' })).toEqual({ fires: [fire('a')], nextCursor: 'c1' });
    expect(decodeFirePage({ fires: [], nextCursor: '' }).nextCursor).toBeNull();
    expect(decodeFirePage({ fires: [] }).nextCursor).toBeNull();
    expect(() => decodeFirePage({ fires: [], nextCursor: 3 })).toThrow(DecodeError);
  });
});

describe('preview decoding', () => {
  it('reads the words and the next times', () => {
    expect(decodePreview({ description: 'Every hour', nextRuns: [T0, T0 + 1], timezone: 'UTC' })).toEqual({
      description: 'Every hour',
      nextRuns: [T0, T0 + 1],
      timezone: 'UTC',
    });
    expect(() => decodePreview({ nextRuns: [] })).toThrow(DecodeError);
    expect(() => decodePreview({ description: 'x', nextRuns: ['soon'] })).toThrow(DecodeError);
  });
});
