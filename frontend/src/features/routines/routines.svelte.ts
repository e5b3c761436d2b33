// The Routines page's state: every schedule (ours and the Gateway's cron
// jobs) with its sources, kept live by the lifecycle stream's "schedule"
// events and re-read on every (re)connect; and the fire history of each
// routine a person opened, kept live by "schedule-fire" events. Started
// while the page is open. Events that arrive while a re-read is in flight
// are applied again on top of its answer, which may predate them.

import { ApiError, describeError, type ApiClient } from '../../lib/api/client';
import { decodeFireAnswer, decodeScheduleEvent } from '../../lib/api/scheduleDecode';
import type { Fire, NewSchedule, Schedule, ScheduleEvent, SchedulePatch, ScheduleSource } from '../../lib/api/scheduleTypes';
import type { LiveEvents } from '../../lib/live.svelte';
import { appendFires, applyScheduleEvent, scheduleList, upsertFire, upsertSchedule } from './routineView';

/** One routine's fire history as far as it has been read. */
export interface FireHistory {
  fires: Fire[];
  cursor: string | null;
  loaded: boolean;
  loading: boolean;
  error: string;
}

export type RoutineAction = 'pause' | 'resume' | 'run' | 'delete';

/** Fires read per page. */
export const FIRE_PAGE = 20;

/** Bound on the events kept while a re-read is in flight. */
const MAX_EVENTS_DURING_READ = 500;

const EMPTY_HISTORY: FireHistory = { fires: [], cursor: null, loaded: false, loading: false, error: '' };

export class RoutinesStore {
  schedules = $state.raw<Schedule[]>([]);
  sources = $state.raw<ScheduleSource[]>([]);
  loaded = $state(false);
  error = $state('');
  /** Histories by schedule id (only those a person opened). */
  histories = $state<Record<string, FireHistory>>({});
  /** The action in flight per schedule. */
  busy = $state<Record<string, RoutineAction>>({});
  /** The last action's refusal per schedule, in words. */
  actionErrors = $state<Record<string, string>>({});
  /**
   * The fire running now per schedule, as the fire events tell (a Run now
   * leaves the schedule's own status as it was: this is how its card knows).
   */
  firing = $state<Record<string, string>>({});

  private unsubscribe: (() => void)[] = [];
  private duringRead: ScheduleEvent[] | null = null;
  /** Schedules a fire event touched while the list was being re-read. */
  private firingTouched: Set<string> | null = null;
  private readGeneration = 0;
  /** Fire events that arrived while a history's first page was being read, by schedule. */
  private firesDuringRead = new Map<string, Fire[]>();
  private historyGeneration = new Map<string, number>();
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
  ) {}

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.onOpen(() => {
        void this.refresh();
        for (const id of Object.keys(this.histories)) if (this.histories[id]?.loaded) void this.loadFires(id);
      }),
      this.live.on('schedule', (data) => this.applyEvent(decodeScheduleEvent(JSON.parse(data)))),
      this.live.on('schedule-fire', (data) => this.applyFire(decodeFireAnswer(JSON.parse(data)))),
    ];
    void this.refresh();
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.retry);
  }

  get(id: string): Schedule | undefined {
    return this.schedules.find((s) => s.id === id);
  }

  source(id: string): ScheduleSource | undefined {
    return this.sources.find((s) => s.id === id);
  }

  history(id: string): FireHistory {
    return this.histories[id] ?? EMPTY_HISTORY;
  }

  private applyEvent(ev: ScheduleEvent): void {
    this.schedules = applyScheduleEvent(this.schedules, ev);
    if (this.duringRead && this.duringRead.length < MAX_EVENTS_DURING_READ) this.duringRead.push(ev);
    if ('deleted' in ev) {
      delete this.histories[ev.deleted];
      delete this.firing[ev.deleted];
    }
  }

  private applyFire(f: Fire): void {
    this.firingTouched?.add(f.scheduleId);
    if (f.outcome === 'running') this.firing[f.scheduleId] = f.id;
    else if (this.firing[f.scheduleId] === f.id) delete this.firing[f.scheduleId];
    const h = this.histories[f.scheduleId];
    if (!h) return;
    h.fires = upsertFire(h.fires, f);
    const pending = this.firesDuringRead.get(f.scheduleId);
    if (pending && pending.length < MAX_EVENTS_DURING_READ) pending.push(f);
  }

  async refresh(): Promise<void> {
    const gen = ++this.readGeneration;
    this.duringRead = [];
    this.firingTouched = new Set();
    try {
      const read = await this.api.schedules.list();
      if (gen !== this.readGeneration) return;
      let next = scheduleList(read.schedules);
      for (const ev of this.duringRead ?? []) next = applyScheduleEvent(next, ev);
      this.duringRead = null;
      // A fire that ended while the stream was down sent its end to nobody:
      // forget what is not confirmed since (a loaded history's re-read puts a running one back).
      for (const id of Object.keys(this.firing)) if (!this.firingTouched?.has(id)) delete this.firing[id];
      this.firingTouched = null;
      this.schedules = next;
      this.sources = read.sources;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (gen !== this.readGeneration) return;
      this.duringRead = null;
      this.firingTouched = null;
      this.error = describeError(err);
      clearTimeout(this.retry);
      if (this.unsubscribe.length) this.retry = setTimeout(() => void this.refresh(), 3_000);
    }
  }

  /** Reads a routine's history's first page (again), or with `more` the next one. */
  async loadFires(id: string, more = false): Promise<void> {
    if (!this.histories[id]) this.histories[id] = { ...EMPTY_HISTORY, fires: [] };
    const h = this.histories[id]!;
    if (more && (h.loading || !h.cursor)) return;
    const gen = (this.historyGeneration.get(id) ?? 0) + 1;
    this.historyGeneration.set(id, gen);
    h.loading = true;
    if (!more) this.firesDuringRead.set(id, []);
    try {
      const page = await this.api.schedules.fires(id, { before: more ? h.cursor : null, limit: FIRE_PAGE });
      const cur = this.histories[id];
      if (!cur || this.historyGeneration.get(id) !== gen) return;
      if (more) {
        cur.fires = appendFires(cur.fires, page.fires);
      } else {
        let fires = page.fires;
        for (const f of this.firesDuringRead.get(id) ?? []) fires = upsertFire(fires, f);
        cur.fires = fires;
        const running = fires.find((f) => f.outcome === 'running');
        if (running) {
          this.firing[id] = running.id;
          this.firingTouched?.add(id);
        }
        else if (!this.firesDuringRead.get(id)?.some((f) => f.outcome === 'running')) delete this.firing[id];
      }
      cur.cursor = page.nextCursor;
      cur.loaded = true;
      cur.error = '';
    } catch (err) {
      const cur = this.histories[id];
      if (cur && this.historyGeneration.get(id) === gen) cur.error = describeError(err);
    } finally {
      if (!more) this.firesDuringRead.delete(id);
      const cur = this.histories[id];
      if (cur && this.historyGeneration.get(id) === gen) cur.loading = false;
    }
  }

  /** Forgets a history a person closed (it is read afresh when opened again). */
  closeHistory(id: string): void {
    delete this.histories[id];
    this.historyGeneration.set(id, (this.historyGeneration.get(id) ?? 0) + 1);
    this.firesDuringRead.delete(id);
  }

  async create(req: NewSchedule): Promise<Schedule> {
    const s = await this.api.schedules.create(req);
    this.schedules = upsertSchedule(this.schedules, s);
    return s;
  }

  async update(id: string, patch: SchedulePatch): Promise<Schedule> {
    const s = await this.api.schedules.update(id, patch);
    this.schedules = upsertSchedule(this.schedules, s);
    return s;
  }

  /** Pause, Resume, Run now or Delete; a refusal is kept in actionErrors (true when it worked). */
  async act(id: string, action: RoutineAction): Promise<boolean> {
    if (this.busy[id]) return false;
    this.busy[id] = action;
    delete this.actionErrors[id];
    try {
      switch (action) {
        case 'pause':
          this.schedules = upsertSchedule(this.schedules, await this.api.schedules.pause(id));
          break;
        case 'resume':
          this.schedules = upsertSchedule(this.schedules, await this.api.schedules.resume(id));
          break;
        case 'run': {
          const f = await this.api.schedules.runNow(id);
          this.applyFire(f);
          break;
        }
        case 'delete':
          await this.api.schedules.remove(id);
          this.applyEvent({ deleted: id });
          break;
      }
      return true;
    } catch (err) {
      this.actionErrors[id] = actionError(action, err);
      if (err instanceof ApiError && err.status === 404) this.applyEvent({ deleted: id });
      return false;
    } finally {
      delete this.busy[id];
    }
  }
}

/** A refused action in words; the 409s the contract names are said plainly. */
export function actionError(action: RoutineAction, err: unknown): string {
  const words = describeError(err);
  if (err instanceof ApiError && err.status === 409) {
    if (action === 'run') return `A fire of this routine is already running (${words}).`;
    if (action === 'resume') return `Cannot resume it: ${words} (edit it to give it a new time).`;
  }
  if (err instanceof ApiError && err.status === 404) return 'This routine no longer exists.';
  const verb = { pause: 'pause', resume: 'resume', run: 'run', delete: 'delete' }[action];
  return `Could not ${verb} it: ${words}`;
}
