// Pure logic of the OpenClaw activity view: tool events of OpenClaw runs
// Clawboo did not start, grouped by Gateway session, each result paired to
// its call by toolCallId, in the run timeline's ToolCallView shape so the
// runs feature's ToolCallItem draws them.

import type { ToolCallView } from '../runs/runView';
import type { OpenClawActivity } from '../../lib/api/openclawTypes';

/** Entries kept in the view (the server keeps its last 200; the stream adds on). */
export const MAX_ENTRIES = 1000;
/** Characters of one tool input or output shown. */
const TOOL_TEXT = 8_000;

export interface SessionGroup {
  sessionKey: string;
  agent: string;
  /** The session's name: the key after its second colon ("agent:main:channel-x" → "channel-x"). */
  name: string;
  /** Newest activity in this session (Unix ms). */
  lastTs: number;
  /** Distinct Gateway run ids seen, in order. */
  runIds: string[];
  calls: ToolCallView[];
}

export function sessionName(key: string): string {
  const parts = key.split(':');
  return parts.length > 2 ? parts.slice(2).join(':') : key;
}

/** The agent of a key "agent:<id>:…", for entries that carry none. */
function agentOf(key: string): string {
  const parts = key.split(':');
  return parts[0] === 'agent' && parts.length > 1 ? parts[1]! : '';
}

function clip(s: string): string {
  return s.length <= TOOL_TEXT ? s : `${s.slice(0, TOOL_TEXT)}\n… (${s.length - TOOL_TEXT} more characters not shown)`;
}

function inputText(input: unknown): string {
  if (input === undefined || input === null) return '{}';
  if (typeof input === 'string') return clip(input);
  try {
    return clip(JSON.stringify(input, null, 2) ?? 'null');
  } catch {
    return String(input);
  }
}

/** Appends new entries, keeping the newest `max`. */
export function appendEntries(list: readonly OpenClawActivity[], add: readonly OpenClawActivity[], max = MAX_ENTRIES): OpenClawActivity[] {
  const next = [...list, ...add];
  return next.length > max ? next.slice(next.length - max) : next;
}

/**
 * Groups entries (oldest first) by session, newest session first; within a
 * session calls stay in order of arrival and each result lands on its
 * call. A result whose call was never seen shows alone (no input); a
 * second call with the same id updates the first.
 */
export function groupActivity(entries: readonly OpenClawActivity[]): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  const indexes = new Map<string, Map<string, number>>();
  let seq = 0;
  for (const a of entries) {
    const key = a.sessionKey || '(no session)';
    let g = groups.get(key);
    if (!g) {
      g = { sessionKey: key, agent: a.agent || agentOf(key), name: sessionName(key), lastTs: 0, runIds: [], calls: [] };
      groups.set(key, g);
      indexes.set(key, new Map());
    }
    const index = indexes.get(key)!;
    g.lastTs = Math.max(g.lastTs, a.ts || 0);
    if (a.runId && !g.runIds.includes(a.runId)) g.runIds.push(a.runId);
    const ev = a.event;
    const id = ev.toolCallId ?? '';
    const at = id ? index.get(id) : undefined;
    seq++;
    if (ev.kind === 'tool-call') {
      const input = inputText(ev.input);
      if (at !== undefined) {
        const t = g.calls[at]!;
        g.calls[at] = { ...t, name: ev.name ?? t.name, input };
      } else {
        if (id) index.set(id, g.calls.length);
        g.calls.push({ id, name: ev.name ?? '', input, output: null, isError: false, seq });
      }
    } else if (ev.kind === 'tool-result') {
      const output = clip(ev.output ?? '');
      const isError = !!ev.isError;
      if (at !== undefined) {
        const t = g.calls[at]!;
        g.calls[at] = { ...t, name: t.name || ev.name || '', output, isError };
      } else {
        if (id) index.set(id, g.calls.length);
        g.calls.push({ id, name: ev.name ?? '', input: '', output, isError, seq });
      }
    }
  }
  return [...groups.values()]
    .filter((g) => g.calls.length > 0)
    .sort((x, y) => y.lastTs - x.lastTs || (x.sessionKey < y.sessionKey ? -1 : 1));
}

/** What the activity page's status line says, and whether to point at setup. */
export interface FeedState {
  text: string;
  /** Nothing is configured: the page says so and links to the setup. */
  notSetUp: boolean;
}

/**
 * The activity page's status line: "Live" only while the stream is open and
 * the Gateway is connected; "Not set up" when no Gateway is configured (the
 * stream is open but nothing can arrive on it). connection is the Gateway's
 * status, null while it is not known yet, "unreadable" when it cannot be read
 * (then the stream's state is all there is to say).
 */
export function feedState(f: { live: boolean; loaded: boolean }, connection: string | null): FeedState {
  if (connection === 'unconfigured') return { text: 'Not set up', notSetUp: true };
  if (!f.live) return { text: f.loaded ? 'Reconnecting…' : 'Connecting…', notSetUp: false };
  switch (connection) {
    case null:
      return { text: 'Checking the Gateway…', notSetUp: false };
    case 'connected':
    case 'unreadable':
      return { text: 'Live', notSetUp: false };
    case 'error':
    case 'closed':
      return { text: 'Gateway not connected', notSetUp: false };
    default:
      return { text: 'Connecting to the Gateway…', notSetUp: false };
  }
}
