// Schedules and fires for the routines tests, as the server sends them (docs/routines.md).

import type { Fire, Schedule } from '../../lib/api/scheduleTypes';

export const T0 = 1_795_000_000_000;

export function schedule(id: string, over: Partial<Schedule> = {}): Schedule {
  return {
    id,
    source: 'clawboo-routine',
    readOnly: false,
    agentId: 'nightly-bot',
    teamId: 'team-1',
    spec: '0 2 * * *',
    timezone: 'Europe/Berlin',
    description: 'At 02:00, every day',
    template: { title: 'Bump dependencies', description: '…', kind: 'code', priority: 0, repoPath: '/home/me/app', model: '', maxUsd: 0.5 },
    status: 'idle',
    nextRunAt: T0 + 3_600_000,
    nextRuns: [T0 + 3_600_000, T0 + 90_000_000],
    lastRunAt: null,
    lastOutcome: null,
    lastError: null,
    failures: 0,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function fire(id: string, over: Partial<Fire> = {}): Fire {
  return {
    id,
    scheduleId: 's1',
    dueAt: T0,
    startedAt: T0 + 100,
    endedAt: null,
    outcome: 'running',
    reason: '',
    runId: 'run-1',
    taskId: 'task-1',
    costUsd: null,
    manual: false,
    ...over,
  };
}
