import { describe, expect, it } from 'vitest';
import type { QuotaWindow } from '../../lib/api/quota';
import {
  barWidth,
  countdown,
  deferralOf,
  groupWindows,
  parsePercent,
  percentText,
  quotaPercent,
  resetText,
  resumeText,
  statusWords,
  tightestByRuntime,
  waitingText,
  windowChoices,
  windowLabel,
  windowTone,
} from './quotaView';

const NOW = new Date(2026, 11, 2, 12, 6, 0).getTime();
const MIN = 60_000;

function win(over: Partial<QuotaWindow> = {}): QuotaWindow {
  return {
    runtime: 'claude-code',
    account: '',
    window: 'five_hour',
    status: 'allowed',
    utilization: 0.5,
    resetsAt: null,
    seenAt: NOW,
    source: '',
    reset: false,
    clearsAt: null,
    ...over,
  };
}

describe('windowLabel', () => {
  it('names the well-known windows', () => {
    expect(windowLabel('five_hour')).toBe('five-hour');
    expect(windowLabel('seven_day')).toBe('weekly');
    expect(windowLabel('seven_day_opus')).toBe('weekly (Opus)');
    expect(windowLabel('seven_day_sonnet')).toBe('weekly (Sonnet)');
    expect(windowLabel('requests')).toBe('requests');
    expect(windowLabel('tokens')).toBe('tokens');
  });

  it('says any other name with spaces for underscores', () => {
    expect(windowLabel('input_tokens')).toBe('input tokens');
    expect(windowLabel('output_tokens')).toBe('output tokens');
    expect(windowLabel('daily')).toBe('daily');
  });
});

describe('percent', () => {
  it('rounds to a whole percent, the same for the text and the bar', () => {
    expect(quotaPercent(0.97)).toBe(97);
    expect(quotaPercent(0.974)).toBe(97);
    expect(quotaPercent(0.975)).toBe(98);
    expect(percentText(0.97)).toBe('97 %');
    expect(barWidth(quotaPercent(0.97))).toBe(97);
  });

  it('never says full before it is, and caps the bar when over', () => {
    expect(quotaPercent(0.998)).toBe(99);
    expect(quotaPercent(1)).toBe(100);
    expect(quotaPercent(1.2)).toBe(120);
    expect(barWidth(120)).toBe(100);
    expect(quotaPercent(-0.1)).toBe(0);
  });

  it('says unknown when not reported', () => {
    expect(quotaPercent(null)).toBeNull();
    expect(percentText(null)).toBe('unknown');
    expect(barWidth(null)).toBe(0);
  });
});

describe('countdown and reset words', () => {
  it('counts down in whole minutes, rounded down', () => {
    expect(countdown(NOW + (2 * 60 + 14) * MIN + 59_000, NOW)).toBe('2h 14m');
    expect(countdown(NOW + 2 * 60 * MIN, NOW)).toBe('2h');
    expect(countdown(NOW + 14 * MIN, NOW)).toBe('14m');
    expect(countdown(NOW + 30_000, NOW)).toBe('under a minute');
    expect(countdown(NOW + (3 * 1440 + 4 * 60 + 5) * MIN, NOW)).toBe('3d 4h');
    expect(countdown(NOW - 1, NOW)).toBe('now');
  });

  it('says when a window resets, in a countdown and a clock time', () => {
    expect(resetText(win({ resetsAt: NOW + 134 * MIN }), NOW)).toBe('resets in 2h 14m (14:20)');
    expect(resetText(win({ resetsAt: null }), NOW)).toBe('');
    expect(resetText(win({ status: 'rejected', resetsAt: null, clearsAt: NOW + 15 * MIN }), NOW)).toBe(
      'no reset time reported: clears by 12:21 if nothing says otherwise',
    );
    expect(resetText(win({ reset: true, resetsAt: NOW - MIN }), NOW)).toBe('reset');
    expect(resetText(win({ resetsAt: NOW - 6 * MIN }), NOW)).toBe('reset at 12:00');
  });

  it('says when deferred work resumes', () => {
    expect(resumeText(NOW + 134 * MIN, NOW)).toBe('14:20 (in 2h 14m)');
    expect(resumeText(NOW, NOW)).toBe('now');
    expect(waitingText({ runtime: 'clawboo-mock', until: NOW + 60 * MIN }, () => 'Mock', NOW)).toBe('Waiting for Mock quota — resumes 13:06 (in 1h)');
  });
});

describe('status words', () => {
  it('gives each status words, a glyph and a tone', () => {
    expect(statusWords(win())).toEqual({ words: 'OK', glyph: '✓', tone: 'ok' });
    expect(statusWords(win({ status: 'allowed_warning' })).words).toBe('Near the limit');
    expect(statusWords(win({ status: 'rejected' })).tone).toBe('bad');
    expect(statusWords(win({ status: 'rejected', reset: true })).words).toBe('Reset since seen');
  });

  it('warns of an allowed window at or over the threshold', () => {
    expect(windowTone(win({ utilization: 0.9 }), 90)).toBe('warn');
    expect(windowTone(win({ utilization: 0.89 }), 90)).toBe('ok');
    expect(windowTone(win({ utilization: null }), 90)).toBe('ok');
    expect(windowTone(win({ status: 'rejected', utilization: 0.2 }), 90)).toBe('bad');
  });
});

describe('tightest window and grouping', () => {
  it('picks a rejected window first, then the fullest, skipping reset ones', () => {
    const a = win({ window: 'five_hour', utilization: 0.4 });
    const b = win({ window: 'seven_day', utilization: 0.8 });
    const c = win({ window: 'seven_day_opus', utilization: 0.1, status: 'rejected' });
    const d = win({ runtime: 'codex', window: 'five_hour', utilization: 0.99, reset: true });
    const e = win({ runtime: 'codex', window: 'seven_day', utilization: 0.3 });
    expect(tightestByRuntime([a, b]).get('claude-code')).toBe(b);
    expect(tightestByRuntime([a, b, c]).get('claude-code')).toBe(c);
    expect(tightestByRuntime([d, e]).get('codex')).toBe(e);
    expect(tightestByRuntime([d]).has('codex')).toBe(false);
  });

  it('groups by runtime name then account, shortest window first', () => {
    const name = (id: string) => ({ 'claude-code': 'Claude Code', codex: 'Codex' })[id] ?? id;
    const g = groupWindows(
      [
        win({ runtime: 'codex', window: 'seven_day' }),
        win({ window: 'seven_day' }),
        win({ window: 'five_hour' }),
        win({ runtime: 'codex', window: 'five_hour', account: 'team' }),
      ],
      name,
    );
    expect(g.map((x) => `${x.runtime}/${x.account}:${x.windows.map((w) => w.window).join(',')}`)).toEqual([
      'claude-code/:five_hour,seven_day',
      'codex/:seven_day',
      'codex/team:five_hour',
    ]);
  });
});

describe('forms', () => {
  it('reads a typed percent', () => {
    expect(parsePercent('90')).toEqual({ value: 90 });
    expect(parsePercent(' 80 %')).toEqual({ value: 80 });
    expect(parsePercent('0')).toHaveProperty('error');
    expect(parsePercent('101')).toHaveProperty('error');
    expect(parsePercent('9.5')).toHaveProperty('error');
    expect(parsePercent('')).toHaveProperty('error');
  });

  it('offers the well-known windows and those seen', () => {
    expect(windowChoices([win({ window: 'requests' }), win({ window: 'daily' })])).toEqual([
      'five_hour',
      'seven_day',
      'seven_day_opus',
      'requests',
      'daily',
    ]);
  });

  it('finds a task’s deferral', () => {
    const d = { id: 'D', kind: 'task' as const, taskId: 'T1', title: '', runtime: 'x', window: 'w', until: 1, reason: '', createdAt: 0 };
    expect(deferralOf([d], 'T1')).toBe(d);
    expect(deferralOf([{ ...d, kind: 'team-turn' }], 'T1')).toBeUndefined();
  });
});
