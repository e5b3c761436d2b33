// Every task on the board, kept live by the lifecycle stream: a re-read on
// every (re)connect, then each "task" event as it comes. PATCH answers go
// through the same merge, so whichever record is newest wins.

import { describeError, type ApiClient } from '../../lib/api/client';
import { decodeBoardEvent } from '../../lib/api/boardDecode';
import type { NewTaskRequest, Task, TaskPatch, TaskStatus } from '../../lib/api/boardTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { columns, mergeTask } from './moves';

export class BoardStore {
  tasks = $state.raw<Task[]>([]);
  loaded = $state(false);
  /** The last list error, in words; "" when fine. */
  error = $state('');
  readonly byStatus = $derived(columns(this.tasks));
  /** The board page shows only this team's tasks ("" for every task); kept here so it outlives the page. */
  teamFilter = $state('');
  /** The tasks the board page shows: every task, or the filter's team's. */
  readonly shown = $derived(this.teamFilter ? this.tasks.filter((t) => t.teamId === this.teamFilter) : this.tasks);
  readonly shownByStatus = $derived(this.teamFilter ? columns(this.shown) : this.byStatus);

  private unsubscribe: (() => void)[] = [];
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
  ) {}

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
  }

  merge(t: Task): void {
    this.tasks = mergeTask(this.tasks, t);
  }

  get(id: string): Task | null {
    return this.tasks.find((t) => t.id === id) ?? null;
  }

  async refresh(): Promise<void> {
    try {
      const list = await this.api.listTasks();
      // A record the stream delivered meanwhile may be newer than the read.
      let next = list;
      for (const t of this.tasks) if (list.some((x) => x.id === t.id)) next = mergeTask(next, t);
      this.tasks = next;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
      clearTimeout(this.retry);
      if (this.unsubscribe.length) this.retry = setTimeout(() => void this.refresh(), 3_000);
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
}
