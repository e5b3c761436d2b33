// The routines routes of the API client (backend/api/schedules.go,
// docs/routines.md), reached as `api.schedules`.

import {
  decodeFireAnswer,
  decodeFirePage,
  decodePreview,
  decodeScheduleAnswer,
  decodeScheduleList,
} from './scheduleDecode';
import type { Fire, FirePage, NewSchedule, Schedule, ScheduleList, SchedulePatch, SchedulePreview } from './scheduleTypes';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

const scheduleUrl = (id: string): string => `/api/schedules/${encodeURIComponent(id)}`;

export class SchedulesApi {
  constructor(private readonly request: Request) {}

  /** Our routines and the Gateway's cron jobs, with whether each source could be read. */
  async list(signal?: AbortSignal): Promise<ScheduleList> {
    return decodeScheduleList(await this.request('GET', '/api/schedules', undefined, signal));
  }

  async get(id: string, signal?: AbortSignal): Promise<Schedule> {
    return decodeScheduleAnswer(await this.request('GET', scheduleUrl(id), undefined, signal));
  }

  /** Creates a routine; an invalid spec, timezone or template, or an unknown agent, rejects with 400 and the reason. */
  async create(req: NewSchedule): Promise<Schedule> {
    return decodeScheduleAnswer(await this.request('POST', '/api/schedules', req));
  }

  async update(id: string, patch: SchedulePatch): Promise<Schedule> {
    return decodeScheduleAnswer(await this.request('PATCH', scheduleUrl(id), patch));
  }

  async pause(id: string): Promise<Schedule> {
    return decodeScheduleAnswer(await this.request('PATCH', scheduleUrl(id), { action: 'pause' }));
  }

  /** Re-arms from now and clears the failure count; a once@ time already past rejects with 409. */
  async resume(id: string): Promise<Schedule> {
    return decodeScheduleAnswer(await this.request('PATCH', scheduleUrl(id), { action: 'resume' }));
  }

  async remove(id: string): Promise<void> {
    await this.request('DELETE', scheduleUrl(id));
  }

  /** A fire now, whatever the status; 409 while one is running. */
  async runNow(id: string): Promise<Fire> {
    return decodeFireAnswer(await this.request('POST', `${scheduleUrl(id)}/run`, {}));
  }

  /** A page of the fire history, newest first; `before` is the previous page's nextCursor. */
  async fires(id: string, opts: { before?: string | null; limit?: number } = {}, signal?: AbortSignal): Promise<FirePage> {
    const q = new URLSearchParams();
    if (opts.limit) q.set('limit', String(opts.limit));
    if (opts.before) q.set('before', opts.before);
    const qs = q.toString();
    return decodeFirePage(await this.request('GET', `${scheduleUrl(id)}/fires${qs ? `?${qs}` : ''}`, undefined, signal));
  }

  /** The spec in words and its next five times; an invalid spec or timezone rejects with 400 and the reason. */
  async preview(spec: string, timezone?: string, signal?: AbortSignal): Promise<SchedulePreview> {
    const body = timezone ? { spec, timezone } : { spec };
    return decodePreview(await this.request('POST', '/api/schedules/preview', body, signal));
  }
}
