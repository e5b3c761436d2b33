// "Needs you", live: keeps the tab title's count of waiting approvals and
// sends browser notifications (the Notification API, asked for once from the
// sidebar and remembered in localStorage) when an approval starts waiting or
// a task's work ends (or a routine fails) while the page is not in view. Listens to the same
// lifecycle stream (/api/events) as the lists; start() it before the board's
// store so a task's previous status is still known when its update arrives.

import { decodeApprovalEvent } from '../../lib/api/approvalDecode';
import { decodeBoardEvent } from '../../lib/api/boardDecode';
import type { TaskStatus } from '../../lib/api/boardTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { ASKED_KEY, approvalNotice, promptVisible, routineFireNotice, shouldNotify, taskNotice, titleText, type Notice, type Permission } from './attention';

function readPermission(): Permission {
  return typeof Notification === 'undefined' ? 'unsupported' : (Notification.permission as Permission);
}

function readAsked(): boolean {
  try {
    return localStorage.getItem(ASKED_KEY) !== null;
  } catch {
    return false;
  }
}

export class Attention {
  permission = $state<Permission>(readPermission());
  asked = $state(readAsked());
  /** The sidebar shows "Turn on notifications". */
  readonly prompt = $derived(promptVisible(this.permission, this.asked));

  /** The page the prompt was first offered on in this window; null until offered. */
  private offeredOn: string | null = null;
  private known = new Map<string, TaskStatus>();
  private unsubscribe: (() => void)[] = [];

  constructor(
    private readonly live: LiveEvents,
    /** A task's status as the board last showed it (before this update). */
    private readonly boardStatus: (id: string) => TaskStatus | undefined,
  ) {}

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.on('approval', (data) => this.notify(approvalNotice(decodeApprovalEvent(JSON.parse(data))))),
      this.live.on('task', (data) => {
        const ev = decodeBoardEvent(JSON.parse(data));
        if (ev.kind !== 'task') return;
        const prev = this.known.get(ev.task.id) ?? this.boardStatus(ev.task.id);
        this.known.set(ev.task.id, ev.task.status);
        this.notify(taskNotice(prev, ev.task));
      }),
      this.live.on('schedule-fire', (data) => this.notify(routineFireNotice(JSON.parse(data)))),
    ];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  /** Writes the tab title for this many waiting approvals. */
  title(waiting: number): void {
    document.title = titleText(waiting);
  }

  /** Asks the browser for permission (from a click), once. */
  async enable(): Promise<void> {
    this.remember();
    if (typeof Notification === 'undefined') return;
    try {
      this.permission = (await Notification.requestPermission()) as Permission;
    } catch {
      this.permission = readPermission();
    }
  }

  /**
   * The person is on `page`. The prompt is offered on one page: left
   * unanswered there for another page, it counts as "Not now" and does not
   * follow the person around (nor come back on the next load).
   */
  pageShown(page: string): void {
    if (!this.prompt) return;
    if (this.offeredOn === null) this.offeredOn = page;
    else if (page !== this.offeredOn) this.remember();
  }

  /** "Not now": the prompt does not come back. */
  dismiss(): void {
    this.remember();
  }

  private remember(): void {
    this.asked = true;
    try {
      localStorage.setItem(ASKED_KEY, String(Date.now()));
    } catch {
      // No storage (a private window): the prompt goes for this page only.
    }
  }

  private notify(n: Notice | null): void {
    if (!n) return;
    this.permission = readPermission();
    if (!shouldNotify(this.permission, document.visibilityState === 'visible' && document.hasFocus())) return;
    try {
      const note = new Notification(n.title, { body: n.body, tag: n.tag });
      note.onclick = () => {
        window.focus();
        location.hash = n.hash;
        note.close();
      };
    } catch {
      // Some browsers allow notifications only from a service worker: the title still counts.
    }
  }
}
