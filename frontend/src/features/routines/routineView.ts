// Pure logic of the Routines page: a schedule's status and last outcome in
// words, times in the person's local time, and how the list and a fire
// history follow the live events.

import type { Fire, Schedule, ScheduleEvent, ScheduleSource } from '../../lib/api/scheduleTypes';

export const OUR_SOURCE = 'clawboo-routine';
export const GATEWAY_SOURCE = 'openclaw-gateway-cron';

export type Tone = 'ok' | 'bad' | 'warn' | 'live' | 'idle';

/** A schedule's status as the page says it: a word, a tone for its colour, and a sentence for its title. */
export function statusWords(s: Pick<Schedule, 'status' | 'nextRunAt' | 'failures'>): { text: string; tone: Tone; hint: string } {
  switch (s.status) {
    case 'idle':
      return s.nextRunAt === null
        ? { text: 'Done', tone: 'idle', hint: 'Not armed: its one time has passed.' }
        : { text: 'Armed', tone: 'ok', hint: 'Waiting for its next run.' };
    case 'queued':
      return { text: 'Queued', tone: 'live', hint: 'Due; about to start.' };
    case 'claimed':
      return { text: 'Starting', tone: 'live', hint: 'A fire is starting.' };
    case 'running':
      return { text: 'Running', tone: 'live', hint: 'A fire is running now.' };
    case 'paused':
      return { text: 'Paused', tone: 'warn', hint: 'Paused by a person; Resume re-arms it from now.' };
    case 'error':
      return {
        text: 'Stopped after failures',
        tone: 'bad',
        hint: `${s.failures || 3} fires failed in a row; it stays disarmed until you resume it.`,
      };
    default:
      return { text: s.status, tone: 'idle', hint: '' };
  }
}

/** A fire's (or a schedule's last) outcome in words; detail is the reason or error, when there is one. */
export function outcomeWords(outcome: string | null, detail?: string | null): { text: string; tone: Tone } {
  const why = (detail ?? '').trim();
  const withWhy = (words: string): string => (why ? `${words}: ${why}` : words);
  switch (outcome) {
    case null:
    case '':
      return { text: 'Not run yet', tone: 'idle' };
    case 'running':
      return { text: withWhy('Running'), tone: 'live' };
    case 'success':
      return { text: withWhy('Succeeded'), tone: 'ok' };
    case 'failed':
      return { text: withWhy('Failed'), tone: 'bad' };
    case 'skipped':
      return { text: why ? `Skipped: ${why}` : 'Skipped (not started)', tone: 'warn' };
    case 'missed':
      return { text: why ? `Missed: ${why}` : 'Missed: due while Clawboo was not running', tone: 'warn' };
    case 'interrupted':
      return { text: why ? `Interrupted: ${why}` : 'Interrupted: Clawboo stopped during the fire', tone: 'bad' };
    default:
      return { text: withWhy(outcome), tone: 'idle' };
  }
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (v: number): string => String(v).padStart(2, '0');

function dayStart(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** "today 09:00", "tomorrow 09:00", "Thu 4 Dec, 09:00", "Thu 4 Dec 2027, 09:00" (local time). */
export function localTime(ms: number, now: number): string {
  const d = new Date(ms);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const days = Math.round((dayStart(ms) - dayStart(now)) / 86_400_000);
  if (days === 0) return `today ${hm}`;
  if (days === 1) return `tomorrow ${hm}`;
  if (days === -1) return `yesterday ${hm}`;
  const year = d.getFullYear() === new Date(now).getFullYear() ? '' : ` ${d.getFullYear()}`;
  return `${DAYS[d.getDay()]} ${d.getDate()} ${MONTHS[d.getMonth()]}${year}, ${hm}`;
}

/** "in 45s", "in 5m", "in 2h 14m", "in 3d 4h"; "now" within a second; "5m ago" for the past. */
export function fromNow(ms: number, now: number): string {
  const diff = ms - now;
  const s = Math.round(Math.abs(diff) / 1000);
  if (s < 1) return 'now';
  let span: string;
  if (s < 60) span = `${s}s`;
  else if (s < 3600) span = `${Math.floor(s / 60)}m`;
  else if (s < 86_400) {
    const m = Math.floor(s / 60) % 60;
    span = `${Math.floor(s / 3600)}h${m ? ` ${m}m` : ''}`;
  } else if (s < 60 * 86_400) {
    const h = Math.floor(s / 3600) % 24;
    span = `${Math.floor(s / 86_400)}d${h ? ` ${h}h` : ''}`;
  } else if (s < 730 * 86_400) {
    span = `about ${Math.round(s / (30.44 * 86_400))} months`;
  } else {
    span = `about ${Math.round(s / (365.25 * 86_400))} years`;
  }
  return diff > 0 ? `in ${span}` : `${span} ago`;
}

/** The next run as the list shows it: "today 09:00 (in 2h 14m)", or why there is none. */
export function nextRunText(s: Pick<Schedule, 'status' | 'nextRunAt'>, now: number): string {
  if (s.nextRunAt === null) {
    if (s.status === 'paused') return 'none while paused';
    if (s.status === 'error') return 'none until resumed';
    if (s.status === 'running' || s.status === 'claimed' || s.status === 'queued') return 'after this fire';
    return 'none (done)';
  }
  return `${localTime(s.nextRunAt, now)} (${fromNow(s.nextRunAt, now)})`;
}

/** The browser's IANA timezone ("Europe/Berlin"), or "UTC" when it has none. */
export function browserTimezone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** What a source that could not be read means, in words; "" when it is fine. */
export function sourceProblem(src: ScheduleSource | undefined): string {
  if (!src || src.ok) return '';
  const why = src.error?.trim() || 'no reason given';
  if (src.id === GATEWAY_SOURCE) return `The OpenClaw Gateway's cron jobs cannot be listed: ${why}`;
  if (src.id === OUR_SOURCE) return `The routines cannot be read: ${why}`;
  return `The schedules of ${src.id} cannot be listed: ${why}`;
}

/** Newest first, so a routine just made is at the top. */
function byNewest(a: Schedule, b: Schedule): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Puts a schedule in the list (replacing the one with its id unless that one is newer). */
export function upsertSchedule(list: readonly Schedule[], s: Schedule): Schedule[] {
  const i = list.findIndex((x) => x.id === s.id);
  if (i < 0) return [...list, s].sort(byNewest);
  if (list[i]!.updatedAt > s.updatedAt) return list as Schedule[];
  const next = list.slice();
  next[i] = s;
  return next;
}

export function applyScheduleEvent(list: readonly Schedule[], ev: ScheduleEvent): Schedule[] {
  if ('deleted' in ev) return list.filter((s) => s.id !== ev.deleted);
  return upsertSchedule(list, ev.schedule);
}

/** The list a read answers, in the page's order. */
export function scheduleList(read: readonly Schedule[]): Schedule[] {
  return [...read].sort(byNewest);
}

/** Splits the list into ours (with actions) and the read-only ones (the Gateway's). */
export function splitBySource(list: readonly Schedule[]): { ours: Schedule[]; gateway: Schedule[] } {
  const ours: Schedule[] = [];
  const gateway: Schedule[] = [];
  for (const s of list) (s.readOnly || s.source !== OUR_SOURCE ? gateway : ours).push(s);
  return { ours, gateway };
}

function fireOrder(a: Fire, b: Fire): number {
  return b.dueAt - a.dueAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Puts a fire in a history (newest first): a new one goes in its place, a known one is replaced. */
export function upsertFire(list: readonly Fire[], f: Fire): Fire[] {
  const i = list.findIndex((x) => x.id === f.id);
  if (i >= 0) {
    const next = list.slice();
    next[i] = f;
    return next;
  }
  return [...list, f].sort(fireOrder);
}

/** Adds a further page to a history, without repeating a fire an event already added. */
export function appendFires(list: readonly Fire[], page: readonly Fire[]): Fire[] {
  const ids = new Set(list.map((f) => f.id));
  return [...list, ...page.filter((f) => !ids.has(f.id))];
}

/** "12.3s", "4m 05s", "2h 03m": how long a fire took. */
export function fireDuration(f: Pick<Fire, 'startedAt' | 'endedAt'>): string {
  if (f.startedAt === null || f.endedAt === null) return '';
  const s = Math.max(0, Math.round((f.endedAt - f.startedAt) / 100) / 10);
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.floor(s);
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${pad(whole % 60)}s`;
  return `${Math.floor(whole / 3600)}h ${pad(Math.floor(whole / 60) % 60)}m`;
}

/** "Tue 09:00 Europe/Berlin": a time as the schedule's own timezone reads it; "" for an unknown zone. */
export function zoneTime(ms: number, timeZone: string): string {
  try {
    const f = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    return `${f.format(new Date(ms)).replace(',', '')} ${timeZone}`;
  } catch {
    return '';
  }
}

/** A spec refusal without the server's own "invalid schedule:" lead (the page already says "Not a valid schedule"). */
export function specReason(words: string): string {
  const rest = words.replace(/^(invalid (schedule|spec)|bad spec)\s*[:,-]\s*/i, '').trim();
  return rest || words;
}
