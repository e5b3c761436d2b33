// Shape checks for the routines API and its live events ("schedule",
// "schedule-fire"). They check what the Routines page relies on (ids,
// times it formats, the lists it maps) and fill the optional fields an
// older or a Gateway-backed entry may leave out.

import type { Fire, FirePage, Schedule, ScheduleEvent, ScheduleList, SchedulePreview, ScheduleSource } from './scheduleTypes';
import { DecodeError, isObject } from './decode';

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const timeOrNull = (v: unknown): boolean => v === null || v === undefined || isTime(v);
const strOrNull = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string';
const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

export function decodeSchedule(v: unknown): Schedule {
  need(isObject(v), 'schedule is not an object');
  need(typeof v.id === 'string' && v.id !== '', 'schedule without an id');
  const id = v.id;
  need(typeof v.spec === 'string', `schedule ${id} has no spec`);
  need(typeof v.status === 'string' && v.status !== '', `schedule ${id} has no status`);
  need(isObject(v.template), `schedule ${id} has no task template`);
  need(timeOrNull(v.nextRunAt) && timeOrNull(v.lastRunAt), `schedule ${id} has a next or last run that is not a time`);
  need(v.nextRuns === undefined || (Array.isArray(v.nextRuns) && v.nextRuns.every(isTime)), `schedule ${id} nextRuns is not a list of times`);
  need(strOrNull(v.lastOutcome) && strOrNull(v.lastError), `schedule ${id} has an odd last outcome`);
  const t = v.template;
  return {
    ...(v as unknown as Schedule),
    source: typeof v.source === 'string' ? v.source : 'clawboo-routine',
    readOnly: v.readOnly === true,
    agentId: typeof v.agentId === 'string' ? v.agentId : '',
    teamId: typeof v.teamId === 'string' && v.teamId !== '' ? v.teamId : null,
    timezone: typeof v.timezone === 'string' ? v.timezone : '',
    description: typeof v.description === 'string' ? v.description : '',
    template: { ...(t as object), title: typeof t.title === 'string' ? t.title : '', kind: typeof t.kind === 'string' ? t.kind : 'code' } as Schedule['template'],
    nextRunAt: orNull(v.nextRunAt as number | null | undefined),
    nextRuns: (v.nextRuns as number[] | undefined) ?? [],
    lastRunAt: orNull(v.lastRunAt as number | null | undefined),
    lastOutcome: orNull(v.lastOutcome as string | null | undefined),
    lastError: orNull(v.lastError as string | null | undefined),
    failures: typeof v.failures === 'number' ? v.failures : 0,
    createdAt: isTime(v.createdAt) ? v.createdAt : 0,
    updatedAt: isTime(v.updatedAt) ? v.updatedAt : 0,
  };
}

function decodeSource(v: unknown): ScheduleSource {
  need(isObject(v) && typeof v.id === 'string' && typeof v.ok === 'boolean', 'a schedule source is not {id, ok}');
  const s: ScheduleSource = { id: v.id, ok: v.ok, writable: v.writable === true };
  if (typeof v.error === 'string' && v.error !== '') s.error = v.error;
  return s;
}

export function decodeScheduleList(v: unknown): ScheduleList {
  need(isObject(v) && Array.isArray(v.schedules), 'schedules list is not {schedules: [...]}');
  need(v.sources === undefined || Array.isArray(v.sources), 'schedule sources is not a list');
  return { schedules: v.schedules.map(decodeSchedule), sources: ((v.sources as unknown[] | undefined) ?? []).map(decodeSource) };
}

/** The answer of a create, a read or a patch: {schedule}. */
export function decodeScheduleAnswer(v: unknown): Schedule {
  need(isObject(v), 'schedule answer is not an object');
  return decodeSchedule(v.schedule);
}

export function decodeFire(v: unknown): Fire {
  need(isObject(v), 'fire is not an object');
  need(typeof v.id === 'string' && v.id !== '', 'fire without an id');
  const id = v.id;
  need(typeof v.scheduleId === 'string' && v.scheduleId !== '', `fire ${id} has no scheduleId`);
  need(isTime(v.dueAt), `fire ${id} has no dueAt`);
  need(timeOrNull(v.startedAt) && timeOrNull(v.endedAt), `fire ${id} has a start or end that is not a time`);
  need(typeof v.outcome === 'string' && v.outcome !== '', `fire ${id} has no outcome`);
  need(strOrNull(v.runId) && strOrNull(v.taskId), `fire ${id} has an odd run or task id`);
  need(v.costUsd === undefined || v.costUsd === null || typeof v.costUsd === 'number', `fire ${id} has a cost that is not a number`);
  return {
    id,
    scheduleId: v.scheduleId,
    dueAt: v.dueAt,
    startedAt: orNull(v.startedAt as number | null | undefined),
    endedAt: orNull(v.endedAt as number | null | undefined),
    outcome: v.outcome,
    reason: typeof v.reason === 'string' ? v.reason : '',
    runId: typeof v.runId === 'string' && v.runId !== '' ? v.runId : null,
    taskId: typeof v.taskId === 'string' && v.taskId !== '' ? v.taskId : null,
    costUsd: typeof v.costUsd === 'number' ? v.costUsd : null,
    manual: v.manual === true,
  };
}

export function decodeFirePage(v: unknown): FirePage {
  need(isObject(v) && Array.isArray(v.fires), 'fires list is not {fires: [...]}');
  const next = v.nextCursor;
  need(next === null || next === undefined || typeof next === 'string', 'nextCursor is not a string');
  return { fires: v.fires.map(decodeFire), nextCursor: next ? next : null };
}

/** The answer of Run now (202 {fire}) and the data of a "schedule-fire" event. */
export function decodeFireAnswer(v: unknown): Fire {
  need(isObject(v), 'fire answer is not an object');
  return decodeFire(v.fire);
}

export function decodePreview(v: unknown): SchedulePreview {
  need(isObject(v) && typeof v.description === 'string', 'preview has no description');
  need(Array.isArray(v.nextRuns) && v.nextRuns.every(isTime), 'preview nextRuns is not a list of times');
  return { description: v.description, nextRuns: v.nextRuns, timezone: typeof v.timezone === 'string' ? v.timezone : '' };
}

export function decodeScheduleEvent(v: unknown): ScheduleEvent {
  need(isObject(v), 'schedule event is not an object');
  if (typeof v.deleted === 'string' && v.deleted !== '') return { deleted: v.deleted };
  return { schedule: decodeSchedule(v.schedule) };
}
