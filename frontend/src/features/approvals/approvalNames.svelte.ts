// Names for an approval card, which the approval JSON gives only as ids:
// the agent's name (GET /api/agents, read once and again when an id is not
// in it) and the task's title (TaskNames: GET /api/board/{id}, once per id).
// A card shows these words; the ids stay behind its "Ids" disclosure.

import { SvelteMap } from 'svelte/reactivity';
import type { Agent } from '../../lib/api/agentTypes';
import { TaskNames, type TaskLookup } from '../board/taskNames.svelte';

export interface AgentLookup {
  listAgents(): Promise<Pick<Agent, 'id' | 'name'>[]>;
}

/** How long an agent id the list did not have waits before the list is read again. */
const AGENTS_AGAIN_MS = 5_000;

export class ApprovalNames {
  private readonly agents = new SvelteMap<string, string>();
  private readonly tasks: TaskNames;
  private agentsAt = -Infinity;
  private reading = false;

  constructor(
    private readonly api: AgentLookup & TaskLookup,
    private readonly now: () => number = Date.now,
  ) {
    this.tasks = new TaskNames(api);
  }

  /** The agent's name, or undefined while unknown (being read, or no such agent). */
  agentName(id: string): string | undefined {
    if (!id) return undefined;
    const name = this.agents.get(id);
    if (name === undefined && !this.reading && this.now() - this.agentsAt > AGENTS_AGAIN_MS) {
      this.reading = true;
      this.agentsAt = this.now();
      // Read outside the effect that asked (a read must not write state while it renders).
      queueMicrotask(() => {
        this.api.listAgents().then(
          (list) => {
            for (const a of list) this.agents.set(a.id, a.name);
            this.reading = false;
          },
          () => {
            this.reading = false;
          },
        );
      });
    }
    return name;
  }

  /** The task's title; undefined while it is read, null for a task the server does not have. */
  taskTitle(id: string): string | null | undefined {
    return id ? this.tasks.title(id) : null;
  }
}

let shared: ApprovalNames | null = null;

/** The page's one ApprovalNames, over the app's API client. */
export function approvalNames(api: { agents: { list(): Promise<Agent[]> }; getTask: TaskLookup['getTask'] }): ApprovalNames {
  shared ??= new ApprovalNames({ listAgents: () => api.agents.list(), getTask: (id) => api.getTask(id) });
  return shared;
}
