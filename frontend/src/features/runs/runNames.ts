// What a run is called where it is listed or shown: its task's title when it
// works on one, else its own title (the first words of its message), else
// "<agent name> on <runtime>"; never a bare id. The agent is named, never
// its id or slug.

import type { Run } from '../../lib/api/types';

export interface RunNamer {
  /** An agent's name, undefined while unknown. */
  agent: (id: string) => string | undefined;
  /** A task's title: undefined while being looked up, null when gone. */
  task: (id: string) => string | null | undefined;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The run's agent by name: "an agent" for one no longer known, "" for none. */
export function runAgent(r: Pick<Run, 'agentId'>, n: RunNamer): string {
  if (!r.agentId) return '';
  return n.agent(r.agentId) ?? 'a removed agent';
}

export function runName(r: Pick<Run, 'id' | 'agentId' | 'taskId' | 'title' | 'runtimeId'>, n: RunNamer): string {
  const task = r.taskId ? n.task(r.taskId) : null;
  if (task) return task;
  const title = r.title.trim();
  if (title && !ULID.test(title) && title !== r.id) return title;
  if (r.agentId) return `${runAgent(r, n)} on ${r.runtimeId}`;
  return `A run on ${r.runtimeId}`;
}
