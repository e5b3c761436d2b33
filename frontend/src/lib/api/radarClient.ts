// The conflict radar (backend/api/radar.go), reached as `radarApi`: live
// tasks whose worktrees change the same files, the hunks that meet, and a
// suggested merge order. Kept apart from client.ts so that file stays
// small; its requests are the client's (JSON in and out, refusals as
// ApiError).

import { DecodeError, isObject } from './decode';
import { jsonRequest } from './mergeClient';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

/** Base-side lines, first to last; an insertion (aAdd/bAdd) is after line [0] (0 = the top). */
export type RadarSpan = [number, number];

export interface RadarHunk {
  a: RadarSpan;
  b: RadarSpan;
  aAdd?: boolean;
  bAdd?: boolean;
}

export interface RadarFile {
  path: string;
  /** The hunks that meet; empty when the two tasks change different places of the file. */
  hunks: RadarHunk[];
}

export interface RadarPair {
  a: string;
  b: string;
  repoPath: string;
  /** Hunks are compared only when both tasks start from one commit. */
  sameBase: boolean;
  files: RadarFile[];
}

export interface Radar {
  pairs: RadarPair[];
  /** Task ids in the suggested merge order (only tasks in a pair). */
  order: string[];
  titles: Record<string, string>;
  tasks: number;
  at: number;
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const isSpan = (v: unknown): v is RadarSpan => Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number');

function decodePair(v: unknown): RadarPair {
  need(isObject(v) && typeof v.a === 'string' && typeof v.b === 'string' && Array.isArray(v.files), 'radar pair is not {a, b, files}');
  const files = v.files.map((f): RadarFile => {
    need(isObject(f) && typeof f.path === 'string', 'radar file has no path');
    const hunks = (Array.isArray(f.hunks) ? f.hunks : []).map((h): RadarHunk => {
      need(isObject(h) && isSpan(h.a) && isSpan(h.b), 'radar hunk is not {a, b}');
      const out: RadarHunk = { a: h.a, b: h.b };
      if (h.aAdd === true) out.aAdd = true;
      if (h.bAdd === true) out.bAdd = true;
      return out;
    });
    return { path: f.path, hunks };
  });
  return { a: v.a, b: v.b, repoPath: typeof v.repoPath === 'string' ? v.repoPath : '', sameBase: v.sameBase !== false, files };
}

export function decodeRadar(v: unknown): Radar {
  need(isObject(v) && Array.isArray(v.pairs) && Array.isArray(v.order), 'radar is not {pairs, order}');
  const titles: Record<string, string> = {};
  if (isObject(v.titles)) for (const [k, t] of Object.entries(v.titles)) if (typeof t === 'string') titles[k] = t;
  return {
    pairs: v.pairs.map(decodePair),
    order: v.order.filter((id): id is string => typeof id === 'string'),
    titles,
    tasks: typeof v.tasks === 'number' ? v.tasks : 0,
    at: typeof v.at === 'number' ? v.at : 0,
  };
}

/** The pairs a task is in, each seen from that task: `other` is the other task, `mine`/`theirs` its and the other's hunks. */
export interface Overlap {
  other: string;
  files: { path: string; hunks: { mine: RadarSpan; theirs: RadarSpan; mineAdd: boolean; theirsAdd: boolean }[] }[];
}

export function overlapsOf(radar: Radar | null, taskId: string): Overlap[] {
  if (!radar) return [];
  const out: Overlap[] = [];
  for (const p of radar.pairs) {
    const mineIsA = p.a === taskId;
    if (!mineIsA && p.b !== taskId) continue;
    out.push({
      other: mineIsA ? p.b : p.a,
      files: p.files.map((f) => ({
        path: f.path,
        hunks: f.hunks.map((h) =>
          mineIsA
            ? { mine: h.a, theirs: h.b, mineAdd: !!h.aAdd, theirsAdd: !!h.bAdd }
            : { mine: h.b, theirs: h.a, mineAdd: !!h.bAdd, theirsAdd: !!h.aAdd },
        ),
      })),
    });
  }
  return out;
}

/** "lines 3–5", "line 3", "after line 3", "at the top". */
export function spanWords(s: RadarSpan, add: boolean): string {
  if (add) return s[0] === 0 ? 'at the top' : `after line ${s[0]}`;
  return s[0] === s[1] ? `line ${s[0]}` : `lines ${s[0]}–${s[1]}`;
}

export class RadarApi {
  constructor(private readonly request: Request) {}

  /** The radar of every repository, or of one. */
  async get(repoPath = '', signal?: AbortSignal): Promise<Radar> {
    const q = repoPath ? `?repoPath=${encodeURIComponent(repoPath)}` : '';
    return decodeRadar(await this.request('GET', `/api/board/radar${q}`, undefined, signal));
  }
}

export const radarApi = new RadarApi(jsonRequest());
