// The pure logic of a team's room: merging posts (ordered by seq, never
// one twice), the "typing" bubbles live deltas make until the committed
// post replaces them, and the words mission control uses for a member.

import { ApiError, describeError } from '../../lib/api/errors';
import type { DeltaEvent, Member, Mission, MissionMember, Post, TurnEvent } from '../../lib/api/teamTypes';

/**
 * The posts of `list` and `incoming`, oldest first, each seq once (the
 * first copy seen wins: a post never changes once committed). Answers
 * `list` itself when nothing is new, so a view can skip the update. The
 * common case, posts newer than the last one, appends without sorting.
 */
export function mergePosts(list: readonly Post[], incoming: readonly Post[]): readonly Post[] {
  if (incoming.length === 0) return list;
  let last = list.length ? list[list.length - 1]!.seq : -Infinity;
  let out: Post[] | null = null;
  let unordered = false;
  let seen: Set<number> | null = null;
  for (const p of incoming) {
    if (p.seq > last) {
      (out ??= list.slice()).push(p);
      seen?.add(p.seq);
      last = p.seq;
      continue;
    }
    // Older than the newest: new only if no post has its seq yet.
    seen ??= new Set((out ?? list).map((x) => x.seq));
    if (seen.has(p.seq)) continue;
    (out ??= list.slice()).push(p);
    seen.add(p.seq);
    unordered = true;
  }
  if (!out) return list;
  if (unordered) out.sort((a, b) => a.seq - b.seq);
  return out;
}

/** The seq a resume asks for posts after: the newest post's, or 0. */
export function lastSeq(list: readonly Post[]): number {
  return list.length ? list[list.length - 1]!.seq : 0;
}

/** A running turn's live text, shown under its agent's name until its post lands. */
export interface Bubble {
  runId: string;
  agentId: string;
  text: string;
}

/** A turn started: a bubble with no text yet ("typing…"); ended: its bubble goes. */
export function applyTurn(bubbles: readonly Bubble[], ev: TurnEvent): readonly Bubble[] {
  if (ev.status === 'ended') return bubbles.some((b) => b.runId === ev.runId) ? bubbles.filter((b) => b.runId !== ev.runId) : bubbles;
  if (bubbles.some((b) => b.runId === ev.runId)) return bubbles;
  return [...bubbles, { runId: ev.runId, agentId: ev.agentId, text: '' }];
}

/** A delta's text is appended to its turn's bubble (made if the turn's start was missed). */
export function applyDelta(bubbles: readonly Bubble[], ev: DeltaEvent): readonly Bubble[] {
  if (ev.text === '') return bubbles;
  const i = bubbles.findIndex((b) => b.runId === ev.runId);
  if (i < 0) return [...bubbles, { runId: ev.runId, agentId: ev.agentId, text: ev.text }];
  const next = bubbles.slice();
  const b = next[i]!;
  next[i] = { ...b, agentId: b.agentId || ev.agentId, text: b.text + ev.text };
  return next;
}

/**
 * A committed post replaces what its author was typing: that agent's
 * bubbles go (a later delta of a turn still running makes a new one).
 */
export function applyPost(bubbles: readonly Bubble[], post: Post): readonly Bubble[] {
  if (post.kind === 'user' || post.authorAgentId === 'user' || post.authorAgentId === 'system') return bubbles;
  return bubbles.some((b) => b.agentId === post.authorAgentId) ? bubbles.filter((b) => b.agentId !== post.authorAgentId) : bubbles;
}

/** How a post is drawn: a person's, an agent's (peer or delegate), or the orchestrator's. */
export function postStyle(p: Post): 'user' | 'agent' | 'system' {
  if (p.kind === 'system' || p.kind === 'stop' || p.kind === 'merge' || p.authorAgentId === 'system') return 'system';
  if (p.kind === 'user' || p.authorAgentId === 'user') return 'user';
  return 'agent';
}

/** "→ @Name" for a delegation: the assignee by name (the backend's, else a member's whose id it is). */
export function assigneeLabel(p: Post, members: readonly Member[]): string {
  if (p.kind !== 'delegate' || !p.assignee) return '';
  // The backend names the assignee, or echoes its id when it no longer knows the member.
  if (p.assigneeName && p.assigneeName !== p.assignee) return `→ @${p.assigneeName}`;
  if (p.assignee.startsWith('@')) return `→ ${p.assignee}`;
  const m = members.find((x) => x.agentId === p.assignee);
  return m ? `→ @${m.name}` : '→ a former member';
}

/** A member by name: the team's, else words (never the agent's id). */
export function memberName(agentId: string, members: readonly Member[]): string {
  return members.find((m) => m.agentId === agentId)?.name ?? 'A member';
}

/** What the room knows of a task a post is about: its title, and whether it has a change to look at. */
export interface TaskInfo {
  title: string;
  status: string;
  /** A live (not archived) worktree: its diff can be read in the drawer. */
  hasDiff: boolean;
}

/** A member's state in words. */
export function stateWords(m: Pick<MissionMember, 'state' | 'taskTitle' | 'runId'>): string {
  switch (m.state) {
    case 'working':
      return m.taskTitle ? `working on “${m.taskTitle}”` : 'working in the room';
    case 'waiting_approval':
      return m.taskTitle ? `waiting for approval on “${m.taskTitle}”` : 'waiting for approval';
    case 'over_budget':
      return 'over budget';
    case 'not_ready':
      return 'runtime not ready';
    default:
      return 'idle';
  }
}

/** Mission-control task counts in board order, zero counts left out. */
export const TASK_ORDER = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled'] as const;

export function taskCounts(tasks: Record<string, number>): { status: string; n: number }[] {
  const known = TASK_ORDER.filter((s) => (tasks[s] ?? 0) > 0).map((s) => ({ status: s as string, n: tasks[s]! }));
  const other = Object.keys(tasks)
    .filter((s) => !(TASK_ORDER as readonly string[]).includes(s) && (tasks[s] ?? 0) > 0)
    .sort()
    .map((s) => ({ status: s, n: tasks[s]! }));
  return [...known, ...other];
}

/**
 * Why a message got no answer, in words, from the POST's refusal. When
 * the backend kept the person's post (posted is true) the message is in
 * the room and only the turn was refused.
 */
export function chatErrorWords(err: unknown, posted = false): string {
  const why = describeError(err).replace(/\.+$/, '');
  const lead = posted ? 'Posted, but no one can answer' : 'Not sent';
  if (err instanceof ApiError) {
    if (err.reason === 'budget_paused') return `${lead}: the team’s budget is paused (${why}). Raise or resume it on Spend.`;
    if (err.reason === 'quota' && posted) return `Posted; the turn waits for quota: ${why}. It starts by itself then (Spend lists it).`;
    if (err.status === 503 || err.reason === 'not_ready') return `${lead}: the runtime is not ready (${why}). Connect it on Runtimes.`;
  }
  return `${lead}: ${why}.`;
}

/** A member whose work can be stopped: a run of theirs is live (working, or waiting for an approval). */
export function isLive(m: Pick<MissionMember, 'state' | 'runId'>): boolean {
  return (m.state === 'working' || m.state === 'waiting_approval') && !!m.runId;
}

/** The runs live in the room now: members' runs (mission control) and turns still typing. */
export function liveRuns(mission: Pick<Mission, 'members'> | null, bubbles: readonly Bubble[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const m of mission?.members ?? []) if (isLive(m)) out.add(m.runId!);
  for (const b of bubbles) out.add(b.runId);
  return out;
}

/** How long a stop's note stays at least, once what it stopped has gone. */
export const STOP_NOTE_MIN_MS = 4_000;

/**
 * Whether a stop's note ("Stopped 1 run.") has had its day, by the room's
 * live state: it goes at once when a run starts that was not live when the
 * stop answered (the room moved on), and once the runs it stopped are gone
 * from the room after it was read for a few seconds (the members' states
 * say the rest).
 */
export function stopNoteStale(liveAtStop: ReadonlySet<string>, liveNow: ReadonlySet<string>, shownMs: number): boolean {
  for (const id of liveNow) if (!liveAtStop.has(id)) return true;
  for (const id of liveAtStop) if (liveNow.has(id)) return false;
  return shownMs >= STOP_NOTE_MIN_MS;
}

/** The words of a stop's answer. */
export function stoppedWords(n: number): string {
  return n === 0 ? 'Nothing was running.' : `Stopped ${n} run${n === 1 ? '' : 's'}.`;
}

/** A task id as the board makes them (a ULID), as it appears in the orchestrator's older texts. */
const TASK_ID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;

/** The task ids written in a post of Clawboo's (only its own texts name tasks by id). */
export function taskIdsIn(p: Post): string[] {
  if (postStyle(p) !== 'system') return [];
  return [...new Set(p.body.match(TASK_ID) ?? [])];
}

/** A post of Clawboo's with each task id in it said as the task's title (“…”), or "a task" while unknown. */
export function namedBody(p: Post, tasks: ReadonlyMap<string, TaskInfo>): string {
  if (postStyle(p) !== 'system') return p.body;
  return p.body.replace(TASK_ID, (id) => {
    const t = tasks.get(id);
    return t ? `“${t.title}”` : 'a task';
  });
}
