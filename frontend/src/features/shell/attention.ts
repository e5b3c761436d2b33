// Pure logic of "needs you": the tab title's count of waiting approvals, and
// when the browser's Notification API is used (an approval starts waiting, a
// task's work ends) and when the one-time "Turn on notifications" prompt
// shows. attention.svelte.ts wires it to the lifecycle stream and the page.

import type { ApprovalEvent } from '../../lib/api/approvalTypes';
import type { Task, TaskStatus } from '../../lib/api/boardTypes';

export const BASE_TITLE = 'Clawboo';

/** The localStorage key remembering that the prompt was answered (or dismissed). */
export const ASKED_KEY = 'clawboo.notifications.asked';

/** "(2) Clawboo" while two approvals wait; "Clawboo" when nothing does. */
export function titleText(waiting: number, base = BASE_TITLE): string {
  return waiting > 0 ? `(${waiting}) ${base}` : base;
}

/** What one notification says, and where clicking it goes. */
export interface Notice {
  title: string;
  body: string;
  /** Same tag, one notification: a repeat replaces the earlier one. */
  tag: string;
  hash: string;
}

/** A newly waiting approval is worth a notification; an answered one is not. */
export function approvalNotice(ev: ApprovalEvent): Notice | null {
  if (ev.kind !== 'requested' || ev.approval.status !== 'pending') return null;
  const a = ev.approval;
  return {
    title: 'Approval needed',
    body: a.title + (a.reason ? `\n${a.reason}` : ''),
    tag: `approval:${a.id}`,
    hash: '#/approvals',
  };
}

const ENDED: Partial<Record<TaskStatus, string>> = {
  in_review: 'is ready for review',
  done: 'is done',
  blocked: 'is blocked',
  cancelled: 'was cancelled',
};

/**
 * A task's work ended: it was in progress and now waits for review, is done,
 * blocked or cancelled. prev is the status it had before this update
 * (undefined when unknown: no notification, as on a page's first read).
 */
export function taskNotice(prev: TaskStatus | undefined, t: Pick<Task, 'id' | 'title' | 'status'>): Notice | null {
  if (prev !== 'in_progress' || t.status === prev) return null;
  const how = ENDED[t.status];
  if (!how) return null;
  return {
    title: `Task ${how}`,
    body: t.title,
    tag: `task:${t.id}`,
    hash: `#/board/${encodeURIComponent(t.id)}`,
  };
}

/**
 * A routine's fire that failed without a task of its own (an OpenClaw
 * turn, a fire that could not start): a failed task run is told as a task.
 * The fire arrives as /api/events' "schedule-fire" data, read loosely: an
 * odd shape is no notice, never an error.
 */
export function routineFireNotice(data: unknown): Notice | null {
  const f = (data as { fire?: Record<string, unknown> } | null)?.fire;
  if (!f || f.outcome !== 'failed' || typeof f.id !== 'string' || typeof f.scheduleId !== 'string') return null;
  if (typeof f.taskId === 'string' && f.taskId !== '') return null;
  return {
    title: 'Routine failed',
    body: typeof f.reason === 'string' ? f.reason.slice(0, 300) : '',
    tag: `fire:${f.id}`,
    hash: '#/routines',
  };
}

export type Permission = 'default' | 'granted' | 'denied' | 'unsupported';

/** Notifications go out only when allowed and the person is not looking at the page. */
export function shouldNotify(permission: Permission, pageVisible: boolean): boolean {
  return permission === 'granted' && !pageVisible;
}

/** The sidebar's prompt: shown until answered once, and only where the browser can still ask. */
export function promptVisible(permission: Permission, asked: boolean): boolean {
  return permission === 'default' && !asked;
}
