// The Settings page's requests (backend/api/disk.go, backend/api/ports.go, the routines' grace
// window in backend/api/schedules.go, start at login in backend/api/autostart.go),
// reached as `settingsApi`. Kept apart from client.ts so that file stays
// small; its requests are the client's (JSON in and out, refusals as
// ApiError in the backend's words).

import { DecodeError } from './decode';
import { jsonRequest } from './mergeClient';
import { decodePortRange, decodeWorktreeBudget, decodeWorktreeDisk, type PortRange, type WorktreeDisk } from './settingsDecode';

export type { DiskWorktree, JanitorReclaimed, JanitorRun, PortRange, WorktreeDisk } from './settingsDecode';

type Request = ReturnType<typeof jsonRequest>;

const BUDGET = '/api/settings/worktree-budget';
const PORTS = '/api/settings/port-range';
const GRACE = '/api/settings/routine-grace';
const AUTOSTART = '/api/settings/autostart';

/** Start at login: an XDG autostart entry (Linux only; `reason` says why not elsewhere). */
export interface Autostart {
  enabled: boolean;
  supported: boolean;
  path: string;
  reason: string;
}

export class SettingsApi {
  constructor(private readonly request: Request) {}

  /** The task worktrees on disk, the budget, the folders the janitor prunes and its last report. */
  async worktrees(signal?: AbortSignal): Promise<WorktreeDisk> {
    return decodeWorktreeDisk(await this.request('GET', '/api/worktrees', undefined, signal));
  }

  /** The per-repository disk budget of finished worktrees, in bytes (0 = none). */
  async budget(signal?: AbortSignal): Promise<number> {
    return decodeWorktreeBudget(await this.request('GET', BUDGET, undefined, signal));
  }

  /** Saves the budget (0 = none); answers the saved value. */
  async setBudget(bytesPerRepo: number): Promise<number> {
    return decodeWorktreeBudget(await this.request('PUT', BUDGET, { bytesPerRepo }));
  }

  async portRange(signal?: AbortSignal): Promise<PortRange> {
    return decodePortRange(await this.request('GET', PORTS, undefined, signal));
  }

  /** Saves the range new leases come from (live leases keep their ports); answers the saved range. */
  async setPortRange(r: PortRange): Promise<PortRange> {
    return decodePortRange(await this.request('PUT', PORTS, r));
  }

  /** The routines' missed-fire grace window, in minutes. */
  async routineGrace(signal?: AbortSignal): Promise<number> {
    return decodeGrace(await this.request('GET', GRACE, undefined, signal));
  }

  /** Saves the grace window (0–1440 minutes); answers the saved one. */
  async setRoutineGrace(minutes: number): Promise<number> {
    return decodeGrace(await this.request('PUT', GRACE, { minutes }));
  }

  /** Whether Clawboo starts at login, and where its autostart entry lives. */
  async autostart(signal?: AbortSignal): Promise<Autostart> {
    return decodeAutostart(await this.request('GET', AUTOSTART, undefined, signal));
  }

  /** Writes (true) or removes (false) the autostart entry; answers the new state. */
  async setAutostart(enabled: boolean): Promise<Autostart> {
    return decodeAutostart(await this.request('PUT', AUTOSTART, { enabled }));
  }
}

function decodeAutostart(v: unknown): Autostart {
  const o = v as Partial<Record<keyof Autostart, unknown>> | null;
  if (typeof o?.enabled !== 'boolean' || typeof o.supported !== 'boolean') {
    throw new DecodeError('unexpected response from the backend: start at login is not {enabled, supported}');
  }
  return {
    enabled: o.enabled,
    supported: o.supported,
    path: typeof o.path === 'string' ? o.path : '',
    reason: typeof o.reason === 'string' ? o.reason : '',
  };
}

function decodeGrace(v: unknown): number {
  const m = (v as { minutes?: unknown } | null)?.minutes;
  if (typeof m !== 'number' || !Number.isInteger(m)) throw new DecodeError('unexpected response from the backend: the grace window is not a number of minutes');
  return m;
}

export const settingsApi = new SettingsApi(jsonRequest());
