// The board's tasks, a page per column, kept live by the lifecycle stream.
// Each column reads COLUMN_PAGE cards at a time ("Show more" reads the
// next page) and knows how many the filter holds in all, so a board of
// thousands stays light and nothing beyond a page is hidden without saying
// so. Every (re)connect and every filter change re-reads; each "task" event
// is merged as it comes (a task the filter does not match leaves), and the
// counts are re-read shortly after a burst of events. PATCH answers go
// through the same merge, so whichever record is newest wins.

import { describeError, type ApiClient } from '../../lib/api/client';
import { decodeBoardEvent } from '../../lib/api/boardDecode';
import type { NewTaskRequest, Task, TaskPatch, TaskStatus } from '../../lib/api/boardTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { columnQuery, columnsOf, matches, NO_FILTER, type BoardFilter } from './boardQuery';
import { mergeTask, TASK_STATUSES } from './moves';

/** Counts are re-read this long after the last event of a burst. */
const RECOUNT_DELAY_MS = 400;

const perStatus = <T>(v: () => T): Record<TaskStatus, T> =>
  Object.fromEntries(TASK_STATUSES.map((s) => [s, v()])) as Record<TaskStatus, T>;

export class BoardStore {
  /** The tasks read so far (every column's pages) and those the stream brought. */
  tasks = $state.raw<Task[]>([]);
  loaded = $state(false);
  /** The last list error, in words; "" when fine. */
  error = $state('');
  filter = $state.raw<BoardFilter>(NO_FILTER);
  /** How many tasks each column holds under the filter, beyond the pages read too. */
  counts = $state.raw<Record<TaskStatus, number>>(perStatus(() => 0));
  /** Each column's next page ("" when it is all read). */
  cursors = $state.raw<Record<TaskStatus, string>>(perStatus(() => ''));
  /** Columns reading their next page. */
  loadingMore = $state.raw<Record<TaskStatus, boolean>>(perStatus(() => false));

  readonly shown = $derived(this.tasks.filter((t) => matches(t, this.filter)));
  readonly shownByStatus = $derived(columnsOf(this.shown));
  /** Every task the filter holds, read or not. */
  readonly total = $derived(TASK_STATUSES.reduce((n, s) => n + this.counts[s], 0));

  private unsubscribe: (() => void)[] = [];
  private retry: ReturnType<typeof setTimeout> | undefined;
  private recountTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by each refresh: an older read's answer is dropped. */
  private generation = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
  ) {}

  /** The team filter ("" every team), as the route sets it. */
  get teamFilter(): string {
    return this.filter.teamId;
  }
  set teamFilter(v: string) {
    this.setFilter({ teamId: v });
  }

  /** Narrows the board; a change of what the server filters re-reads it. */
  setFilter(p: Partial<BoardFilter>): void {
    const next = { ...this.filter, ...p };
    const before = this.filter;
    if (JSON.stringify(next) === JSON.stringify(before)) return;
    this.filter = next;
    const reread = next.teamId !== before.teamId || next.agentId !== before.agentId || next.runtime !== before.runtime || next.q !== before.q;
    if (reread && this.unsubscribe.length) void this.refresh();
  }

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.onOpen(() => void this.refresh()),
      this.live.on('task', (data) => {
        const ev = decodeBoardEvent(JSON.parse(data));
        if (ev.kind === 'task') this.merge(ev.task);
      }),
    ];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.retry);
    clearTimeout(this.recountTimer);
  }

  /** Puts a task record in (a newer one wins); the column counts follow. */
  merge(t: Task): void {
    const old = this.tasks.find((x) => x.id === t.id);
    if (old && old.updatedAt > t.updatedAt) return;
    if (!matches(t, this.filter)) {
      if (old) {
        this.tasks = this.tasks.filter((x) => x.id !== t.id);
        this.bump(old.status, -1);
      }
    } else {
      this.tasks = mergeTask(this.tasks, t);
      if (!old) this.bump(t.status, +1);
      else if (old.status !== t.status) {
        this.bump(old.status, -1);
        this.bump(t.status, +1);
      }
    }
    this.recountSoon();
  }

  get(id: string): Task | null {
    return this.tasks.find((t) => t.id === id) ?? null;
  }

  /** Re-reads the first page of every column, and the counts. */
  async refresh(): Promise<void> {
    const gen = ++this.generation;
    const f = this.filter;
    try {
      const pages = await Promise.all(TASK_STATUSES.map((s) => this.api.listTasks(columnQuery(s, f))));
      if (gen !== this.generation) return;
      let next = pages.flatMap((p) => p.tasks);
      // A record the stream delivered meanwhile may be newer than the read.
      for (const t of this.tasks) if (next.some((x) => x.id === t.id)) next = mergeTask(next, t);
      this.tasks = next;
      this.counts = Object.fromEntries(TASK_STATUSES.map((s, i) => [s, pages[i]!.counts[s] ?? pages[i]!.tasks.length])) as Record<TaskStatus, number>;
      this.cursors = Object.fromEntries(TASK_STATUSES.map((s, i) => [s, pages[i]!.nextCursor])) as Record<TaskStatus, string>;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (gen !== this.generation) return;
      this.error = describeError(err);
      clearTimeout(this.retry);
      if (this.unsubscribe.length) this.retry = setTimeout(() => void this.refresh(), 3_000);
    }
  }

  /** Reads a column's next page. */
  async more(status: TaskStatus): Promise<void> {
    const cursor = this.cursors[status];
    if (!cursor || this.loadingMore[status]) return;
    const gen = this.generation;
    this.loadingMore = { ...this.loadingMore, [status]: true };
    try {
      const page = await this.api.listTasks(columnQuery(status, this.filter, cursor));
      if (gen !== this.generation) return;
      let next = this.tasks;
      for (const t of page.tasks) next = mergeTask(next, t);
      this.tasks = next;
      this.cursors = { ...this.cursors, [status]: page.nextCursor };
      if (page.counts[status] !== undefined) this.counts = { ...this.counts, [status]: page.counts[status]! };
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
    } finally {
      this.loadingMore = { ...this.loadingMore, [status]: false };
    }
  }

  async create(req: NewTaskRequest): Promise<Task> {
    const t = await this.api.createTask(req);
    this.merge(t);
    return t;
  }

  /** Edits or moves a task; rejects with the backend's ApiError (its reason says why). */
  async patch(id: string, patch: TaskPatch): Promise<Task> {
    const t = await this.api.patchTask(id, patch);
    this.merge(t);
    return t;
  }

  move(id: string, to: TaskStatus): Promise<Task> {
    return this.patch(id, { status: to });
  }

  private bump(s: TaskStatus, by: number): void {
    this.counts = { ...this.counts, [s]: Math.max(0, this.counts[s] + by) };
  }

  /** The stream says what changed, not what the filter now holds in all: re-count after a burst. */
  private recountSoon(): void {
    clearTimeout(this.recountTimer);
    if (!this.unsubscribe.length) return;
    this.recountTimer = setTimeout(() => void this.recount(), RECOUNT_DELAY_MS);
  }

  private async recount(): Promise<void> {
    const gen = this.generation;
    try {
      const { teamId, agentId, runtime, q } = this.filter;
      const page = await this.api.listTasks({ teamId, agentId, runtime, q: q.trim(), limit: 1 });
      if (gen !== this.generation) return;
      this.counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, page.counts[s] ?? 0])) as Record<TaskStatus, number>;
    } catch {
      // The next event or reconnect tries again.
    }
  }
}
