import { describe, expect, it } from 'vitest';
import {
  appendFires,
  applyScheduleEvent,
  fireDuration,
  fromNow,
  localTime,
  nextRunText,
  outcomeWords,
  scheduleList,
  sourceProblem,
  specReason,
  splitBySource,
  statusWords,
  upsertFire,
  upsertSchedule,
  zoneTime,
} from './routineView';
import { T0, fire, schedule } from './fixtures';

/** A local time (the test machine's zone), so the expectations hold in any zone. */
const at = (y: number, mo: number, d: number, h = 0, mi = 0): number => new Date(y, mo - 1, d, h, mi).getTime();

describe('status and outcome in words', () => {
  it('says what each status means', () => {
    expect(statusWords({ status: 'idle', nextRunAt: T0, failures: 0 }).text).toBe('Armed');
    expect(statusWords({ status: 'idle', nextRunAt: null, failures: 0 }).text).toBe('Done');
    expect(statusWords({ status: 'running', nextRunAt: null, failures: 0 })).toMatchObject({ text: 'Running', tone: 'live' });
    expect(statusWords({ status: 'claimed', nextRunAt: null, failures: 0 }).text).toBe('Starting');
    expect(statusWords({ status: 'queued', nextRunAt: T0, failures: 0 }).text).toBe('Queued');
    expect(statusWords({ status: 'paused', nextRunAt: null, failures: 0 })).toMatchObject({ text: 'Paused', tone: 'warn' });
    const err = statusWords({ status: 'error', nextRunAt: null, failures: 3 });
    expect(err).toMatchObject({ text: 'Stopped after failures', tone: 'bad' });
    expect(err.hint).toMatch(/3 fires failed in a row/);
    expect(statusWords({ status: 'snoozing', nextRunAt: null, failures: 0 }).text).toBe('snoozing');
  });

  it('says each outcome, with its reason or error', () => {
    expect(outcomeWords(null)).toEqual({ text: 'Not run yet', tone: 'idle' });
    expect(outcomeWords('success', null)).toEqual({ text: 'Succeeded', tone: 'ok' });
    expect(outcomeWords('running')).toEqual({ text: 'Running', tone: 'live' });
    expect(outcomeWords('failed', 'verify failed: exit 1')).toEqual({ text: 'Failed: verify failed: exit 1', tone: 'bad' });
    expect(outcomeWords('failed', '  ')).toEqual({ text: 'Failed', tone: 'bad' });
    expect(outcomeWords('skipped', 'the team budget is paused').text).toBe('Skipped: the team budget is paused');
    expect(outcomeWords('skipped').text).toBe('Skipped (not started)');
    expect(outcomeWords('missed').text).toBe('Missed: due while Clawboo was not running');
    expect(outcomeWords('missed', '3 times missed while closed').text).toBe('Missed: 3 times missed while closed');
    expect(outcomeWords('interrupted').text).toBe('Interrupted: Clawboo stopped during the fire');
    expect(outcomeWords('exploded', 'why').text).toBe('exploded: why');
  });

  it('drops the lead of a spec refusal the page already says', () => {
    expect(specReason('invalid schedule: end of range (61) above maximum (59): "61"')).toBe('end of range (61) above maximum (59): "61"');
    expect(specReason('unknown time zone Mars/Base')).toBe('unknown time zone Mars/Base');
    expect(specReason('invalid schedule: ')).toBe('invalid schedule: ');
  });

  it('says why a source cannot be read', () => {
    expect(sourceProblem(undefined)).toBe('');
    expect(sourceProblem({ id: 'openclaw-gateway-cron', ok: true, writable: false })).toBe('');
    expect(sourceProblem({ id: 'openclaw-gateway-cron', ok: false, error: 'not connected', writable: false })).toBe(
      "The OpenClaw Gateway's cron jobs cannot be listed: not connected",
    );
    expect(sourceProblem({ id: 'clawboo-routine', ok: false, writable: true })).toBe('The routines cannot be read: no reason given');
  });
});

describe('times in local time', () => {
  const now = at(2026, 12, 2, 10, 0);

  it('names today, tomorrow and yesterday, else the date', () => {
    expect(localTime(at(2026, 12, 2, 9, 5), now)).toBe('today 09:05');
    expect(localTime(at(2026, 12, 3, 0, 0), now)).toBe('tomorrow 00:00');
    expect(localTime(at(2026, 12, 1, 23, 59), now)).toBe('yesterday 23:59');
    expect(localTime(at(2026, 12, 10, 9, 0), now)).toBe('Thu 10 Dec, 09:00');
    expect(localTime(at(2027, 1, 4, 9, 0), now)).toBe('Mon 4 Jan 2027, 09:00');
  });

  it('says how far away a time is', () => {
    expect(fromNow(now + 400, now)).toBe('now');
    expect(fromNow(now + 45_000, now)).toBe('in 45s');
    expect(fromNow(now + 5 * 60_000, now)).toBe('in 5m');
    expect(fromNow(now + 2 * 3_600_000 + 14 * 60_000, now)).toBe('in 2h 14m');
    expect(fromNow(now + 3_600_000, now)).toBe('in 1h');
    expect(fromNow(now + 3 * 86_400_000 + 4 * 3_600_000, now)).toBe('in 3d 4h');
    expect(fromNow(now - 5 * 60_000, now)).toBe('5m ago');
    expect(fromNow(now + 90 * 86_400_000, now)).toBe('in about 3 months');
    expect(fromNow(now + 1140 * 86_400_000, now)).toBe('in about 3 years');
  });

  it('shows the next run, or why there is none', () => {
    expect(nextRunText({ status: 'idle', nextRunAt: at(2026, 12, 2, 12, 0) }, now)).toBe('today 12:00 (in 2h)');
    expect(nextRunText({ status: 'paused', nextRunAt: null }, now)).toBe('none while paused');
    expect(nextRunText({ status: 'error', nextRunAt: null }, now)).toBe('none until resumed');
    expect(nextRunText({ status: 'running', nextRunAt: null }, now)).toBe('after this fire');
    expect(nextRunText({ status: 'idle', nextRunAt: null }, now)).toBe('none (done)');
  });

  it("reads a time in the schedule's own zone", () => {
    expect(zoneTime(Date.UTC(2026, 11, 1, 8, 0), 'Europe/Berlin')).toBe('Tue 09:00 Europe/Berlin');
    expect(zoneTime(T0, 'Not/AZone')).toBe('');
  });

  it('says how long a fire took', () => {
    expect(fireDuration({ startedAt: null, endedAt: null })).toBe('');
    expect(fireDuration({ startedAt: 0, endedAt: 12_340 })).toBe('12.3s');
    expect(fireDuration({ startedAt: 0, endedAt: 245_000 })).toBe('4m 05s');
    expect(fireDuration({ startedAt: 0, endedAt: 7_380_000 })).toBe('2h 03m');
  });
});

describe('the list follows the events', () => {
  it('keeps the newest routine first', () => {
    const list = scheduleList([schedule('old', { createdAt: T0 }), schedule('new', { createdAt: T0 + 5 })]);
    expect(list.map((s) => s.id)).toEqual(['new', 'old']);
    expect(upsertSchedule(list, schedule('newer', { createdAt: T0 + 9 })).map((s) => s.id)).toEqual(['newer', 'new', 'old']);
  });

  it('replaces a schedule in place, unless what it has is newer', () => {
    const list = [schedule('a', { updatedAt: T0 + 10, status: 'paused' })];
    expect(upsertSchedule(list, schedule('a', { updatedAt: T0 + 20, status: 'idle' }))[0]!.status).toBe('idle');
    expect(upsertSchedule(list, schedule('a', { updatedAt: T0 + 5, status: 'running' }))[0]!.status).toBe('paused');
  });

  it('drops a deleted schedule', () => {
    expect(applyScheduleEvent([schedule('a'), schedule('b')], { deleted: 'a' }).map((s) => s.id)).toEqual(['b']);
    expect(applyScheduleEvent([schedule('b')], { schedule: schedule('c', { createdAt: T0 + 1 }) }).map((s) => s.id)).toEqual(['c', 'b']);
  });

  it("puts the Gateway's jobs apart", () => {
    const { ours, gateway } = splitBySource([
      schedule('a'),
      schedule('g', { source: 'openclaw-gateway-cron', readOnly: true }),
      schedule('r', { readOnly: true }),
    ]);
    expect(ours.map((s) => s.id)).toEqual(['a']);
    expect(gateway.map((s) => s.id)).toEqual(['g', 'r']);
  });

  it('keeps a fire history newest first, an update in place, a page without repeats', () => {
    let h = [fire('f1', { dueAt: T0 })];
    h = upsertFire(h, fire('f2', { dueAt: T0 + 10 }));
    expect(h.map((f) => f.id)).toEqual(['f2', 'f1']);
    h = upsertFire(h, fire('f1', { dueAt: T0, outcome: 'success' }));
    expect(h.map((f) => `${f.id}:${f.outcome}`)).toEqual(['f2:running', 'f1:success']);
    expect(appendFires(h, [fire('f1'), fire('f0', { dueAt: T0 - 10 })]).map((f) => f.id)).toEqual(['f2', 'f1', 'f0']);
  });
});
