// The routine editor's pure half: the spec quick picks, a datetime-local
// value as a once@ spec, and the form's fields to and from a request.

import type { TaskKind } from '../../lib/api/boardTypes';
import type { NewSchedule, Schedule, SchedulePatch, TaskTemplate } from '../../lib/api/scheduleTypes';

export interface QuickPick {
  label: string;
  spec: string;
}

/** The specs one click away (the "once" pick is a date-time field of its own). */
export const QUICK_PICKS: readonly QuickPick[] = [
  { label: 'Hourly', spec: '@hourly' },
  { label: 'Daily at 09:00', spec: '0 9 * * *' },
  { label: 'Weekdays at 09:00', spec: '0 9 * * 1-5' },
  { label: 'Weekly, Monday 09:00', spec: '0 9 * * 1' },
];

export const KINDS: readonly { value: TaskKind; label: string }[] = [
  { value: 'code', label: 'code' },
  { value: 'research', label: 'research' },
  { value: 'review', label: 'review' },
];

const pad = (v: number): string => String(Math.floor(Math.abs(v))).padStart(2, '0');

/**
 * A datetime-local value ("2026-12-03T09:00", the browser's local time) as
 * `once@<RFC 3339>` with the local offset ("once@2026-12-03T09:00:00+01:00"),
 * or null when it is not a date-time.
 */
export function onceSpec(local: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const at = new Date(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(at.getTime()) || at.getMonth() !== mo - 1 || at.getDate() !== d) return null;
  const off = -at.getTimezoneOffset();
  const zone = off === 0 ? 'Z' : `${off > 0 ? '+' : '-'}${pad(off / 60)}:${pad(off % 60)}`;
  return `once@${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone}`;
}

/** The datetime-local value of a once@ spec (in the browser's local time), or "" for any other spec. */
export function onceLocal(spec: string): string {
  const m = /^once@(.+)$/.exec(spec.trim());
  if (!m) return '';
  const at = new Date(m[1]!);
  if (Number.isNaN(at.getTime())) return '';
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** What the editor's fields hold (numbers as typed: "" is none). */
export interface RoutineFields {
  agentId: string;
  spec: string;
  timezone: string;
  title: string;
  description: string;
  kind: TaskKind;
  priority: string;
  repoPath: string;
  model: string;
  maxUsd: string;
}

export function emptyFields(timezone: string): RoutineFields {
  return { agentId: '', spec: '', timezone, title: '', description: '', kind: 'research', priority: '', repoPath: '', model: '', maxUsd: '' };
}

/** The fields of an existing routine, for Edit. */
export function fieldsOf(s: Schedule): RoutineFields {
  const t = s.template;
  return {
    agentId: s.agentId,
    spec: s.spec,
    timezone: s.timezone,
    title: t.title,
    description: t.description ?? '',
    kind: t.kind,
    priority: t.priority ? String(t.priority) : '',
    repoPath: t.repoPath ?? '',
    model: t.model ?? '',
    maxUsd: t.maxUsd ? String(t.maxUsd) : '',
  };
}

/** The task template the fields describe, or the first problem in words. */
export function templateOf(f: RoutineFields, base: Partial<TaskTemplate> = {}): { template: TaskTemplate } | { error: string } {
  const title = f.title.trim();
  if (!title) return { error: 'Give the task a title: each run makes a task with it.' };
  const template: TaskTemplate = { ...base, title, kind: f.kind };
  delete template.description;
  delete template.priority;
  delete template.repoPath;
  delete template.model;
  delete template.maxUsd;
  if (f.description.trim()) template.description = f.description;
  const p = f.priority.trim();
  if (p) {
    const n = Number(p);
    if (!Number.isInteger(n)) return { error: `Priority must be a whole number, not “${p}”.` };
    template.priority = n;
  }
  if (f.repoPath.trim()) template.repoPath = f.repoPath.trim();
  if (f.model.trim()) template.model = f.model.trim();
  const cap = f.maxUsd.trim().replace(/^\$/, '');
  if (cap) {
    const n = Number(cap);
    if (!Number.isFinite(n) || n <= 0) return { error: `Max USD must be an amount above 0, like 0.50, not “${f.maxUsd.trim()}”.` };
    template.maxUsd = n;
  }
  return { template };
}

/** The POST body for a new routine, or the first problem in words. */
export function newSchedule(f: RoutineFields): { req: NewSchedule } | { error: string } {
  if (!f.agentId) return { error: 'Choose the agent that does the work.' };
  if (!f.spec.trim()) return { error: 'Say when it runs: type a schedule or pick one.' };
  const t = templateOf(f);
  if ('error' in t) return t;
  const req: NewSchedule = { agentId: f.agentId, spec: f.spec.trim(), template: t.template };
  if (f.timezone.trim()) req.timezone = f.timezone.trim();
  return { req };
}

/** The PATCH body for an edited routine (spec, timezone, template), or the first problem in words. */
export function schedulePatch(s: Schedule, f: RoutineFields): { patch: SchedulePatch } | { error: string } {
  if (!f.spec.trim()) return { error: 'Say when it runs: type a schedule or pick one.' };
  const t = templateOf(f, s.template);
  if ('error' in t) return t;
  const patch: SchedulePatch = { spec: f.spec.trim(), template: t.template };
  if (f.timezone.trim()) patch.timezone = f.timezone.trim();
  return { patch };
}
