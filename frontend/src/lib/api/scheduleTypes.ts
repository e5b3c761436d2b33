// Wire types of the routines routes (backend/api/schedules.go, package
// backend/routines; contract in docs/routines.md), spelled as the JSON.
// Times are Unix milliseconds.

import type { TaskKind } from './boardTypes';

/** Where a schedule lives: ours, or one of the OpenClaw Gateway's own cron jobs (read-only). */
export type ScheduleSourceId = 'clawboo-routine' | 'openclaw-gateway-cron';

/** idle (armed when nextRunAt is set, else done), queued, claimed, running, paused, error (3 failures in a row). */
export type ScheduleStatus = 'idle' | 'queued' | 'claimed' | 'running' | 'paused' | 'error';

export type FireOutcome = 'running' | 'success' | 'failed' | 'skipped' | 'missed' | 'interrupted';

/** What each fire makes a task from. */
export interface TaskTemplate {
  title: string;
  description?: string;
  kind: TaskKind;
  priority?: number;
  repoPath?: string;
  model?: string;
  maxUsd?: number;
  teamId?: string;
}

export interface Schedule {
  id: string;
  source: ScheduleSourceId | string;
  readOnly: boolean;
  agentId: string;
  teamId: string | null;
  spec: string;
  timezone: string;
  /** The spec in words, from the server ("At 02:00, every day"). */
  description: string;
  template: TaskTemplate;
  /** A ScheduleStatus; a newer server's word is shown as sent. */
  status: ScheduleStatus | string;
  nextRunAt: number | null;
  /** The next five fire times, [] when disarmed. */
  nextRuns: number[];
  lastRunAt: number | null;
  lastOutcome: FireOutcome | string | null;
  lastError: string | null;
  failures: number;
  createdAt: number;
  updatedAt: number;
  /** A Gateway cron job's own name. */
  name?: string;
}

/** A source of schedules and whether it could be read. */
export interface ScheduleSource {
  id: ScheduleSourceId | string;
  ok: boolean;
  error?: string;
  writable: boolean;
}

export interface ScheduleList {
  schedules: Schedule[];
  sources: ScheduleSource[];
}

/** One row of a schedule's fire ledger. */
export interface Fire {
  id: string;
  scheduleId: string;
  dueAt: number;
  startedAt: number | null;
  endedAt: number | null;
  outcome: FireOutcome | string;
  reason: string;
  runId: string | null;
  taskId: string | null;
  costUsd: number | null;
  /** Started by Run now, not by the clock. */
  manual: boolean;
}

export interface FirePage {
  fires: Fire[];
  nextCursor: string | null;
}

export interface SchedulePreview {
  description: string;
  nextRuns: number[];
  timezone: string;
}

export interface NewSchedule {
  agentId: string;
  spec: string;
  timezone?: string;
  template: TaskTemplate;
}

export interface SchedulePatch {
  spec?: string;
  timezone?: string;
  template?: TaskTemplate;
}

/** A "schedule" event of /api/events: the schedule after a change, or the id of one deleted. */
export type ScheduleEvent = { schedule: Schedule } | { deleted: string };
