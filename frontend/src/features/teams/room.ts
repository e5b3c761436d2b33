// The pure logic of a team's room: merging posts (ordered by seq, never
// one twice), the "typing" bubbles live deltas make until the committed
// post replaces them, and the words mission control uses for a member.

import { ApiError, describeError } from '../../lib/api/errors';
import type { DeltaEvent, Member, MissionMember, Post, TurnEvent } from '../../lib/api/teamTypes';

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
  if (p.kind === 'system' || p.authorAgentId === 'system') return 'system';
  if (p.kind === 'user' || p.authorAgentId === 'user') return 'user';
  return 'agent';
}

/** "→ @Name" for a delegation: the assignee by name (the backend's, else a member's whose id it is). */
export function assigneeLabel(p: Post, members: readonly Member[]): string {
  if (p.kind !== 'delegate' || !p.assignee) return '';
  if (p.assigneeName) return `→ @${p.assigneeName}`;
  const raw = p.assignee.replace(/^@/, '');
  const m = members.find((x) => x.agentId === raw);
  return `→ @${m ? m.name : raw}`;
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
