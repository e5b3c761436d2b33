// The paired phone's client (backend/api/phone.go, phoneteams.go): only the
// routes the phones' LAN listener answers, under /m/api. The device's
// cookie goes with every request by itself (HttpOnly: the page never sees
// it). A 401 means this phone is not (or no longer) paired.

import { decodeApproval } from './approvalDecode';
import type { ApprovalRequest } from './approvalTypes';
import { DecodeError, isObject } from './decode';
import { ApiError, errorFromResponse, UNREACHABLE, type FetchFn } from './errors';
import { decodeWindow, type QuotaWindow } from './quota';

/** A request waiting for a person, with who asks and where by name. */
export interface PhoneApproval extends ApprovalRequest {
  agentName: string;
  teamName: string;
  hostName: string;
}

/** A run going, with its agent, team and host by name ("" for none). */
export interface PhoneRun {
  id: string;
  runtimeId: string;
  title: string;
  status: string;
  startedAt: number | null;
  createdAt: number;
  agentName: string;
  teamName: string;
  hostName: string;
}

export interface PhoneTeam {
  id: string;
  name: string;
}

export interface PhonePost {
  seq: number;
  teamId: string;
  authorName: string;
  kind: string;
  body: string;
  createdAt: number;
}

/** The usage windows, and the runtimes' names to show them under. */
export interface PhoneQuota {
  threshold: number;
  windows: QuotaWindow[];
  runtimeNames: Record<string, string>;
}

export interface PairedDevice {
  id: string;
  name: string;
}

type Method = 'GET' | 'POST';

/** A request as the phone's routes and stream carry it: with its names. */
export function decodePhoneApproval(v: unknown): PhoneApproval {
  const o = isObject(v) ? v : {};
  return { ...decodeApproval(v), agentName: str(o.agentName), teamName: str(o.teamName), hostName: str(o.hostName) };
}

/** The phone stream's "approval" event: {kind: requested|resolved, approval}. */
export function decodePhoneApprovalEvent(data: string): { kind: string; approval: PhoneApproval } {
  const raw: unknown = JSON.parse(data);
  if (!isObject(raw) || typeof raw.kind !== 'string') throw new DecodeError('approval event: expected {kind, approval}');
  return { kind: raw.kind, approval: decodePhoneApproval(raw.approval) };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function list(raw: unknown, key: string): unknown[] {
  if (!isObject(raw) || !Array.isArray(raw[key])) throw new DecodeError(`expected {${key}: [...]}`);
  return raw[key] as unknown[];
}

export class PhoneApi {
  constructor(private readonly fetchFn: FetchFn = (i, o) => globalThis.fetch(i, o)) {}

  private async request(method: Method, path: string, body?: unknown): Promise<unknown> {
    const init: RequestInit = { method, headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' };
    if (body !== undefined) {
      init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(path, init);
    } catch {
      throw new ApiError(0, UNREACHABLE);
    }
    if (!res.ok) throw await errorFromResponse(res);
    try {
      return (await res.json()) as unknown;
    } catch {
      throw new ApiError(res.status, `the computer sent an unreadable answer to ${method} ${path}`);
    }
  }

  /** Pairs this phone with the link's one-time code; the cookie comes with the answer. */
  async pair(code: string, name: string): Promise<PairedDevice> {
    const raw = await this.request('POST', '/m/api/pair', { code, name });
    const d = isObject(raw) ? raw.device : null;
    if (!isObject(d) || typeof d.id !== 'string') throw new DecodeError('pair: expected {device}');
    return { id: d.id, name: str(d.name) };
  }

  async approvals(): Promise<PhoneApproval[]> {
    return list(await this.request('GET', '/m/api/approvals'), 'approvals').map(decodePhoneApproval);
  }

  /** Allow or Deny; the first answer wins (409 with the backend's words otherwise). */
  async resolve(id: string, decision: 'allow' | 'deny'): Promise<void> {
    await this.request('POST', `/m/api/approvals/${encodeURIComponent(id)}/resolve`, { decision });
  }

  async runs(): Promise<PhoneRun[]> {
    return list(await this.request('GET', '/m/api/runs'), 'runs').map((v) => {
      if (!isObject(v) || typeof v.id !== 'string') throw new DecodeError('run: expected {id, ...}');
      return {
        id: v.id,
        runtimeId: str(v.runtimeId),
        title: str(v.title),
        status: str(v.status),
        startedAt: typeof v.startedAt === 'number' ? v.startedAt : null,
        createdAt: num(v.createdAt),
        agentName: str(v.agentName),
        teamName: str(v.teamName),
        hostName: str(v.hostName),
      };
    });
  }

  /** A person's Stop: final, as on the computer. */
  async stop(id: string): Promise<void> {
    await this.request('POST', `/m/api/runs/${encodeURIComponent(id)}/stop`, {});
  }

  async teams(): Promise<PhoneTeam[]> {
    return list(await this.request('GET', '/m/api/teams'), 'teams').map((v) => {
      if (!isObject(v) || typeof v.id !== 'string') throw new DecodeError('team: expected {id, name}');
      return { id: v.id, name: str(v.name) };
    });
  }

  /** The room's latest posts, oldest first. */
  async posts(teamId: string): Promise<PhonePost[]> {
    return list(await this.request('GET', `/m/api/teams/${encodeURIComponent(teamId)}/chat`), 'posts').map((v) => {
      if (!isObject(v)) throw new DecodeError('post: expected an object');
      return { seq: num(v.seq), teamId: str(v.teamId), authorName: str(v.authorName), kind: str(v.kind), body: str(v.body), createdAt: num(v.createdAt) };
    });
  }

  /** Writes to a team's room as the person. */
  async write(teamId: string, message: string): Promise<void> {
    await this.request('POST', `/m/api/teams/${encodeURIComponent(teamId)}/chat`, { message });
  }

  async quota(): Promise<PhoneQuota> {
    const raw = await this.request('GET', '/m/api/quota');
    const names = isObject(raw) && isObject(raw.runtimeNames) ? raw.runtimeNames : {};
    return {
      threshold: isObject(raw) ? num(raw.threshold) : 0,
      windows: list(raw, 'windows').map(decodeWindow),
      runtimeNames: Object.fromEntries(Object.entries(names).filter((e): e is [string, string] => typeof e[1] === 'string')),
    };
  }
}

/** The phone's live stream. */
export const PHONE_EVENTS_URL = '/m/api/events';
