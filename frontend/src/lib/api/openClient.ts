// Opening a task's worktree where people work (backend/api/open.go),
// reached as `openApi`: in the desktop the backend starts the terminal or
// editor itself; in a browser it answers a command to copy. The client
// only names what to open, never a path or a program.

import { DecodeError, isObject } from './decode';
import { jsonRequest } from './mergeClient';

export type OpenWhat = 'terminal' | 'editor' | 'preview';

/** GET /api/board/{id}/open. */
export interface OpenInfo {
  /** There is a live worktree to open; when false, why says why not. */
  available: boolean;
  why?: string;
  path: string;
  /** Programs open on this desktop; false: commands to copy. */
  desktop: boolean;
  /** The task's first leased port (0: none). */
  previewPort: number;
  previewListening: boolean;
}

/** POST /api/board/{id}/open. */
export interface OpenResult {
  opened: boolean;
  command?: string;
  url?: string;
  /** Why it was not opened on the desktop. */
  why?: string;
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

export function decodeOpenInfo(v: unknown): OpenInfo {
  need(isObject(v), 'open info is not an object');
  if (v.available === false) return { available: false, why: typeof v.why === 'string' ? v.why : '', path: '', desktop: false, previewPort: 0, previewListening: false };
  need(typeof v.path === 'string', 'open info has no path');
  return {
    available: true,
    path: v.path,
    desktop: v.desktop === true,
    previewPort: typeof v.previewPort === 'number' ? v.previewPort : 0,
    previewListening: v.previewListening === true,
  };
}

export function decodeOpenResult(v: unknown): OpenResult {
  need(isObject(v) && typeof v.opened === 'boolean', 'open answer has no opened flag');
  const out: OpenResult = { opened: v.opened };
  if (typeof v.command === 'string') out.command = v.command;
  if (typeof v.url === 'string') out.url = v.url;
  if (typeof v.why === 'string') out.why = v.why;
  return out;
}

const url = (taskId: string): string => `/api/board/${encodeURIComponent(taskId)}/open`;

export class OpenApi {
  constructor(private readonly request: ReturnType<typeof jsonRequest>) {}

  async info(taskId: string, signal?: AbortSignal): Promise<OpenInfo> {
    return decodeOpenInfo(await this.request('GET', url(taskId), undefined, signal));
  }

  async open(taskId: string, what: OpenWhat): Promise<OpenResult> {
    return decodeOpenResult(await this.request('POST', url(taskId), { what }));
  }
}

export const openApi = new OpenApi(jsonRequest());
