// Task titles for pages outside the board (Runs, Spend) that name tasks the
// board may not have loaded (it reads a page per column): the board's own
// record when it has one, else GET /api/board/{id}, asked once per id and
// kept. A task that no longer exists is remembered as missing (null).

import { SvelteMap } from 'svelte/reactivity';
import type { Task } from '../../lib/api/boardTypes';

export interface TaskLookup {
  getTask(id: string): Promise<{ task: Task }>;
}

export class TaskNames {
  /** id → title, null for a task the server does not have. */
  private readonly known = new SvelteMap<string, string | null>();
  private readonly asked = new Set<string>();

  constructor(
    private readonly api: TaskLookup,
    /** The board's loaded record of a task, if any. */
    private readonly loaded: (id: string) => Task | null | undefined = () => undefined,
  ) {}

  /** The task's title, or undefined while it is being asked for (null: no such task). */
  title(id: string): string | null | undefined {
    if (!id) return null;
    const t = this.loaded(id);
    if (t) return t.title;
    if (!this.asked.has(id)) {
      this.asked.add(id);
      // Asked outside the reading effect (a read must not write state while it renders).
      queueMicrotask(() => {
        this.api.getTask(id).then(
          (d) => this.known.set(id, d.task.title),
          (err: unknown) => {
            if ((err as { status?: number })?.status === 404) this.known.set(id, null);
            else this.asked.delete(id); // asked again on the next read
          },
        );
      });
    }
    return this.known.get(id);
  }
}
