import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import { decodeApprovalEvent, decodeApprovals } from '../../lib/api/approvalDecode';
import { answerable, answeredInOpenClaw, APPROVAL_TTL_MS, applyEvent, forRun, forTeam, pendingList, riskLevel, timeLeft, toDisplay, visible } from './approvalView';

const T0 = 1_790_000_000_000;

function req(over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: 'ap1',
    kind: 'command',
    title: '',
    command: 'git status --short',
    folder: '/home/me/repo/.clawboo/wt/t1',
    agentId: 'builder-x1',
    taskId: 'T1',
    runId: 'R1',
    reason: 'See what changed before committing.',
    risk: 'medium',
    status: 'pending',
    createdAt: T0,
    expiresAt: T0 + APPROVAL_TTL_MS,
    ...over,
  };
}

describe('timeLeft', () => {
  it('counts down minutes and seconds, then says expired', () => {
    expect(timeLeft(T0 + APPROVAL_TTL_MS, T0)).toBe('10m 00s left');
    expect(timeLeft(T0 + 9 * 60_000 + 5_000, T0)).toBe('9m 05s left');
    expect(timeLeft(T0 + 61_000, T0)).toBe('1m 01s left');
    expect(timeLeft(T0 + 60_000, T0)).toBe('1m 00s left');
    expect(timeLeft(T0 + APPROVAL_TTL_MS + 999, T0)).toBe('10m 00s left');
    expect(timeLeft(T0 + 59_999, T0)).toBe('59s left');
    expect(timeLeft(T0 + 42_000, T0)).toBe('42s left');
    expect(timeLeft(T0 + 1_500, T0)).toBe('1s left');
    expect(timeLeft(T0 + 1, T0)).toBe('0s left');
    expect(timeLeft(T0, T0)).toBe('expired');
    expect(timeLeft(T0 - 5_000, T0)).toBe('expired');
    expect(timeLeft(Number.NaN, T0)).toBe('expired');
  });

  it('answerable only while pending and before the deadline', () => {
    expect(answerable(req(), T0)).toBe(true);
    expect(answerable(req(), T0 + APPROVAL_TTL_MS)).toBe(false);
    expect(answerable(req({ status: 'approved' }), T0)).toBe(false);
  });
});

describe('toDisplay', () => {
  it('maps a command request', () => {
    const d = toDisplay(req());
    expect(d).toMatchObject({
      id: 'ap1',
      heading: 'Run a command',
      kindLabel: 'Command',
      program: 'git status --short',
      args: '',
      folder: '/home/me/repo/.clawboo/wt/t1',
      agentId: 'builder-x1',
      taskId: 'T1',
      taskHref: '#/board/T1',
      runId: 'R1',
      runHref: '#/runs/R1',
      reason: 'See what changed before committing.',
      risk: 'medium',
    });
  });

  it('maps a tool request, with its title and arguments', () => {
    const d = toDisplay(
      req({ kind: 'tool', command: undefined, tool: 'delete_path', args: '{"path":"/tmp/x"}', title: 'Delete /tmp/x', risk: 'HIGH', taskId: undefined, runId: undefined }),
    );
    expect(d.kindLabel).toBe('Tool');
    expect(d.program).toBe('delete_path');
    expect(d.args).toBe('{"path":"/tmp/x"}');
    expect(d.heading).toBe('Delete /tmp/x');
    expect(d.risk).toBe('high');
    expect(d.taskHref).toBe('');
    expect(d.runHref).toBe('');
    expect(toDisplay(req({ kind: 'tool', command: undefined, tool: 'x' })).heading).toBe('Use x');
    expect(toDisplay(req({ kind: 'tool', command: undefined })).heading).toBe('Use a tool');
  });

  it('escapes ids in links and makes control characters visible', () => {
    const d = toDisplay(req({ taskId: 'a/b c', runId: 'r#1', command: 'echo \u001b[31mred\u0000', args: 'x\ty\nz', reason: '  why\u202e  ' }));
    expect(d.taskHref).toBe('#/board/a%2Fb%20c');
    expect(d.runHref).toBe('#/runs/r%231');
    expect(d.program).toBe('echo \\x1b[31mred\\x00');
    expect(d.args).toBe('x\ty\nz');
    expect(d.reason).toBe('why\\u{202e}');
  });

  it('keeps markup as text (the views never render HTML)', () => {
    expect(toDisplay(req({ command: '<img src=x onerror=alert(1)>' })).program).toBe('<img src=x onerror=alert(1)>');
  });

  it('reads the risk loosely', () => {
    expect(riskLevel('low')).toBe('low');
    expect(riskLevel(' Medium ')).toBe('medium');
    expect(riskLevel('')).toBe('unknown');
    expect(riskLevel(undefined)).toBe('unknown');
    expect(riskLevel('catastrophic')).toBe('unknown');
    expect(visible('plain')).toBe('plain');
  });
});

describe('the pending list', () => {
  const a = req({ id: 'a', createdAt: T0 + 2 });
  const b = req({ id: 'b', createdAt: T0 + 1, runId: 'R2' });

  it('keeps pending rows only, oldest first', () => {
    expect(pendingList([a, req({ id: 'c', status: 'denied' }), b]).map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('follows requested and resolved events', () => {
    let list = applyEvent([], { kind: 'requested', approval: a });
    list = applyEvent(list, { kind: 'requested', approval: b });
    expect(list.map((r) => r.id)).toEqual(['b', 'a']);
    // A repeated event replaces, never duplicates.
    list = applyEvent(list, { kind: 'requested', approval: { ...a, title: 'again' } });
    expect(list.map((r) => r.title)).toEqual(['', 'again']);
    list = applyEvent(list, { kind: 'resolved', approval: { ...b, status: 'approved' } });
    expect(list.map((r) => r.id)).toEqual(['a']);
    list = applyEvent(list, { kind: 'resolved', approval: { ...a, status: 'expired' } });
    expect(list).toEqual([]);
    // Resolving one never seen changes nothing.
    expect(applyEvent([a], { kind: 'resolved', approval: req({ id: 'zz', status: 'denied' }) })).toEqual([a]);
  });

  it('picks one run’s requests', () => {
    expect(forRun([a, b], 'R2').map((r) => r.id)).toEqual(['b']);
    expect(forRun([a, b], '')).toEqual([]);
  });

  it('decodes the wire shapes and refuses bad ones', () => {
    expect(decodeApprovals({ approvals: [a] })).toEqual([a]);
    expect(decodeApprovalEvent({ kind: 'resolved', approval: a }).kind).toBe('resolved');
    expect(() => decodeApprovals({})).toThrow(/approvals list/);
    expect(() => decodeApprovalEvent({ kind: 'other', approval: a })).toThrow(/unknown kind/);
    expect(() => decodeApprovals({ approvals: [{ ...a, status: 'maybe' }] })).toThrow(/unknown status/);
  });
});

describe('answered in OpenClaw', () => {
  it('reads a withdrawn expiry as answered in OpenClaw, nothing else', () => {
    expect(answeredInOpenClaw(req({ status: 'expired', note: 'withdrawn: the caller stopped waiting' }))).toBe(true);
    expect(answeredInOpenClaw(req({ status: 'expired' }))).toBe(false);
    expect(answeredInOpenClaw(req({ status: 'denied', note: 'withdrawn: the caller stopped waiting' }))).toBe(false);
  });
});

describe('forTeam', () => {
  it('keeps the requests of the team and of its members, and no other team’s', () => {
    const base = { kind: 'command' as const, title: '', status: 'pending' as const, createdAt: 1, expiresAt: 2 };
    const list = [
      { ...base, id: 'a', teamId: 't1', agentId: 'x' },
      { ...base, id: 'b', agentId: 'dev-1', runId: 'r1' },
      { ...base, id: 'c', teamId: 't2', agentId: 'dev-1' },
      { ...base, id: 'd', agentId: 'stranger' },
    ];
    expect(forTeam(list, 't1', ['lead-1', 'dev-1']).map((r) => r.id)).toEqual(['a', 'b']);
  });
});
