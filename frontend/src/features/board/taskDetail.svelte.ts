// One task as its drawer shows it: the task, comments, runs, worktree,
// children and legal moves. Loaded on open and on every stream reconnect,
// then kept live: "task" events replace the task (and, when its status or
// run changed, re-read the rest: worktree, moves and runs follow a move),
// "comment" events add comments, "run" events update its runs. The critic's
// reviews are ad-hoc runs (no taskId): one already listed is updated like
// the task's own, and a new ad-hoc run while the task works re-reads the
// list once, which is how a review that just started shows up.

import { ApiError, describeError, type ApiClient } from '../../lib/api/client';
import { decodeBoardEvent } from '../../lib/api/boardDecode';
import type { Comment, Task, TaskDetail, TaskPatch, TaskRunRequest } from '../../lib/api/boardTypes';
import { decodeRun } from '../../lib/api/decode';
import type { Run } from '../../lib/api/types';
import type { LiveEvents } from '../../lib/live.svelte';
import { compareRuns, newerRun } from '../runs/runList';
import type { BoardStore } from './board.svelte';
import { movesAfter } from './moves';

/** Re-reads after a burst of events wait this long, so a burst costs one read. */
const RELOAD_DELAY_MS = 150;

export class TaskDetailStore {
  detail = $state.raw<TaskDetail | null>(null);
  /** Why the task cannot be shown, in words; "" when fine. */
  error = $state('');
  /** The task does not exist (a final 404). */
  missing = $state(false);
  /** The last run started here went to a fallback runtime (the quota governor's words why); null when not routed. */
  routed = $state.raw<{ from: string; to: string; why: string } | null>(null);

  private unsubscribe: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** Ad-hoc runs already looked for in this task's list (see start). */
  private seenAdHoc = new Set<string>();

  constructor(
    readonly taskId: string,
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
    private readonly board: BoardStore,
  ) {}

  get task(): Task | null {
    return this.detail?.task ?? null;
  }

  start(): void {
    void this.load();
    this.unsubscribe = [
      this.live.onOpen(() => void this.load()),
      this.live.on('task', (data) => {
        const ev = decodeBoardEvent(JSON.parse(data));
        if (ev.kind !== 'task') return;
        if (ev.task.id === this.taskId) this.applyTask(ev.task);
        else if (ev.task.parentId === this.taskId) this.applyChild(ev.task);
      }),
      this.live.on('comment', (data) => {
        const ev = decodeBoardEvent(JSON.parse(data));
        if (ev.kind === 'comment' && ev.comment.taskId === this.taskId) this.addComment(ev.comment);
      }),
      this.live.on('run', (data) => {
        const run = decodeRun(JSON.parse(data));
        if (run.taskId === this.taskId) this.mergeRun(run);
        else if (run.taskId === null) this.adHocRun(run);
      }),
    ];
  }

  stop(): void {
    this.stopped = true;
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.timer);
  }

  async load(): Promise<void> {
    try {
      const d = await this.api.getTask(this.taskId);
      if (this.stopped) return;
      // A task event may have overtaken the read.
      const cur = this.detail?.task;
      this.detail = cur && cur.updatedAt > d.task.updatedAt ? { ...d, task: cur } : d;
      this.board.merge(this.detail.task);
      this.error = '';
      this.missing = false;
    } catch (err) {
      if (this.stopped) return;
      this.error = describeError(err);
      this.missing = err instanceof ApiError && err.status === 404;
    }
  }

  /** Re-reads soon; several calls in a burst make one read. */
  reloadSoon(): void {
    clearTimeout(this.timer);
    if (!this.stopped) this.timer = setTimeout(() => void this.load(), RELOAD_DELAY_MS);
  }

  applyTask(t: Task): void {
    const d = this.detail;
    if (!d) {
      this.reloadSoon();
      return;
    }
    if (d.task.updatedAt > t.updatedAt) return;
    this.detail = { ...d, task: t, moves: movesAfter(d.task, d.moves, t) };
    if (d.task.status !== t.status || d.task.runId !== t.runId || d.task.verification?.at !== t.verification?.at) this.reloadSoon();
  }

  private applyChild(t: Task): void {
    const d = this.detail;
    if (!d) return;
    const i = d.children.findIndex((c) => c.id === t.id);
    const children = [...d.children];
    if (i < 0) children.push(t);
    else children[i] = t;
    this.detail = { ...d, children };
  }

  addComment(c: Comment): void {
    const d = this.detail;
    if (!d || d.comments.some((x) => x.id === c.id)) return;
    this.detail = { ...d, comments: [...d.comments, c] };
  }

  /** A run event of the task's (a live view has no role: the listed run keeps its own, else it is the task's). */
  mergeRun(r: Run): void {
    const d = this.detail;
    if (!d) return;
    const old = d.runs.find((x) => x.id === r.id);
    const runs = old
      ? d.runs.map((x) => (x.id === r.id ? { ...newerRun(x, r), role: x.role ?? 'task' } : x))
      : [...d.runs, { ...r, role: r.role ?? 'task' }].sort(compareRuns);
    this.detail = { ...d, runs };
  }

  /** An ad-hoc run: a listed critic review is updated; a new one while the task works may be its review, so the list is re-read once. */
  private adHocRun(r: Run): void {
    const d = this.detail;
    if (!d) return;
    if (d.runs.some((x) => x.id === r.id)) {
      this.mergeRun(r);
      return;
    }
    if (this.seenAdHoc.has(r.id) || d.task.status !== 'in_progress') return;
    this.seenAdHoc.add(r.id);
    this.reloadSoon();
  }

  // ---- changes; each rejects with the backend's ApiError ----

  async patch(p: TaskPatch): Promise<void> {
    this.applyTask(await this.board.patch(this.taskId, p));
  }

  async comment(body: string): Promise<void> {
    this.addComment(await this.api.addComment(this.taskId, body));
  }

  async addDependency(dep: string): Promise<void> {
    const t = await this.api.addDependency(this.taskId, dep);
    this.board.merge(t);
    this.applyTask(t);
  }

  async removeDependency(dep: string): Promise<void> {
    const t = await this.api.removeDependency(this.taskId, dep);
    this.board.merge(t);
    this.applyTask(t);
  }

  /** Starts a run of this task; answers its id. */
  async run(runtimeId: string, message: string, agentId = ''): Promise<string> {
    const req: TaskRunRequest = { taskId: this.taskId };
    if (message.trim()) req.message = message;
    if (agentId) req.assigneeAgentId = agentId;
    this.routed = null;
    const started = await this.api.runTask(runtimeId, req);
    if (started.routedFrom) this.routed = { from: started.routedFrom, to: started.runtime ?? '', why: started.why ?? '' };
    this.reloadSoon();
    return started.runId;
  }
}
