import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../lib/api/approvalTypes';
import { approvalNotice, promptVisible, routineFireNotice, shouldNotify, taskNotice, titleText } from './attention';

const req = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: 'ap1',
  kind: 'command',
  title: 'rm /tmp/x',
  status: 'pending',
  createdAt: 1,
  expiresAt: 2,
  ...over,
});

describe('attention', () => {
  it('counts waiting approvals in the tab title', () => {
    expect(titleText(0)).toBe('Clawboo');
    expect(titleText(2)).toBe('(2) Clawboo');
    expect(titleText(1, 'X')).toBe('(1) X');
  });

  it('notifies about a newly waiting approval, not an answered one', () => {
    expect(approvalNotice({ kind: 'requested', approval: req({ reason: 'cleanup' }) })).toEqual({
      title: 'Approval needed',
      body: 'rm /tmp/x\ncleanup',
      tag: 'approval:ap1',
      hash: '#/approvals',
    });
    expect(approvalNotice({ kind: 'resolved', approval: req({ status: 'approved' }) })).toBeNull();
    expect(approvalNotice({ kind: 'requested', approval: req({ status: 'expired' }) })).toBeNull();
  });

  it('notifies when a task’s work ends, not on other moves', () => {
    const t = { id: 'a/b', title: 'Fix it', status: 'in_review' as const };
    expect(taskNotice('in_progress', t)).toEqual({
      title: 'Task is ready for review',
      body: 'Fix it',
      tag: 'task:a/b',
      hash: '#/board/a%2Fb',
    });
    expect(taskNotice('in_progress', { ...t, status: 'done' })?.title).toBe('Task is done');
    expect(taskNotice('in_progress', { ...t, status: 'blocked' })?.title).toBe('Task is blocked');
    expect(taskNotice('in_progress', { ...t, status: 'in_progress' })).toBeNull();
    expect(taskNotice('in_progress', { ...t, status: 'todo' })).toBeNull();
    expect(taskNotice('todo', { ...t, status: 'done' })).toBeNull();
    expect(taskNotice(undefined, t)).toBeNull();
  });

  it('notifies only when allowed and the page is not in view', () => {
    expect(shouldNotify('granted', false)).toBe(true);
    expect(shouldNotify('granted', true)).toBe(false);
    expect(shouldNotify('default', false)).toBe(false);
    expect(shouldNotify('denied', false)).toBe(false);
    expect(shouldNotify('unsupported', false)).toBe(false);
  });

  it('asks once', () => {
    expect(promptVisible('default', false)).toBe(true);
    expect(promptVisible('default', true)).toBe(false);
    expect(promptVisible('granted', false)).toBe(false);
    expect(promptVisible('denied', false)).toBe(false);
    expect(promptVisible('unsupported', false)).toBe(false);
  });
});

describe('routineFireNotice', () => {
  const fire = (over: Record<string, unknown>) => ({ fire: { id: 'F1', scheduleId: 'S1', outcome: 'failed', reason: 'stopped by the 10m0s watchdog', taskId: null, ...over } });
  it('tells a failed fire without a task, linking the Routines page', () => {
    expect(routineFireNotice(fire({}))).toEqual({ title: 'Routine failed', body: 'stopped by the 10m0s watchdog', tag: 'fire:F1', hash: '#/routines' });
  });
  it('leaves a failed task run to the task notice, and says nothing for other outcomes or odd shapes', () => {
    expect(routineFireNotice(fire({ taskId: 'T1' }))).toBeNull();
    expect(routineFireNotice(fire({ outcome: 'success' }))).toBeNull();
    expect(routineFireNotice(fire({ outcome: 'skipped' }))).toBeNull();
    expect(routineFireNotice(null)).toBeNull();
    expect(routineFireNotice({ fire: { outcome: 'failed' } })).toBeNull();
  });
});
