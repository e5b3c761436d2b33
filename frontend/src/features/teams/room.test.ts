import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import type { MissionMember, Post } from '../../lib/api/teamTypes';
import { makePost } from '../../lib/testing/fixtures';
import {
  applyDelta,
  applyPost,
  applyTurn,
  assigneeLabel,
  chatErrorWords,
  lastSeq,
  mergePosts,
  memberName,
  namedBody,
  taskIdsIn,
  isLive,
  liveRuns,
  stopNoteStale,
  stoppedWords,
  postStyle,
  stateWords,
  taskCounts,
  type Bubble,
} from './room';

const seqs = (ps: readonly Post[]) => ps.map((p) => p.seq);

describe('mergePosts', () => {
  it('appends newer posts in order', () => {
    const a = [makePost(1), makePost(2)];
    expect(seqs(mergePosts(a, [makePost(3), makePost(4)]))).toEqual([1, 2, 3, 4]);
  });

  it('never shows a post twice: a resume that overlaps, a POST answer then its stream copy', () => {
    const a = [makePost(1), makePost(2), makePost(3)];
    const b = mergePosts(a, [makePost(2), makePost(3), makePost(4), makePost(4)]);
    expect(seqs(b)).toEqual([1, 2, 3, 4]);
    // The first copy wins.
    const first = makePost(5, { body: 'first' });
    expect(mergePosts(mergePosts(b, [first]), [makePost(5, { body: 'again' })]).at(-1)!.body).toBe('first');
  });

  it('puts a late older post in its place', () => {
    expect(seqs(mergePosts([makePost(1), makePost(4)], [makePost(3), makePost(2), makePost(5)]))).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers the same array when nothing is new, so the view skips the update', () => {
    const a = [makePost(1), makePost(2)];
    expect(mergePosts(a, [])).toBe(a);
    expect(mergePosts(a, [makePost(1), makePost(2)])).toBe(a);
  });

  it('does not change its input', () => {
    const a = [makePost(1)];
    mergePosts(a, [makePost(2)]);
    expect(seqs(a)).toEqual([1]);
  });

  it('merges a thousand posts quickly', () => {
    let list: readonly Post[] = [];
    const t0 = performance.now();
    for (let i = 1; i <= 1000; i++) list = mergePosts(list, [makePost(i)]);
    list = mergePosts(list, Array.from({ length: 1000 }, (_, i) => makePost(i + 1)));
    expect(list).toHaveLength(1000);
    expect(lastSeq(list)).toBe(1000);
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('lastSeq is 0 for an empty room', () => {
    expect(lastSeq([])).toBe(0);
  });
});

describe('typing bubbles', () => {
  const running = { runId: 'r1', agentId: 'lead-1', status: 'running' as const };

  it('a turn start shows an empty bubble; deltas append; the turn end removes it', () => {
    let b: readonly Bubble[] = applyTurn([], running);
    expect(b).toEqual([{ runId: 'r1', agentId: 'lead-1', text: '' }]);
    expect(applyTurn(b, running)).toBe(b);
    b = applyDelta(b, { runId: 'r1', agentId: 'lead-1', text: 'Hel' });
    b = applyDelta(b, { runId: 'r1', agentId: 'lead-1', text: 'lo' });
    expect(b[0]!.text).toBe('Hello');
    expect(applyTurn(b, { ...running, status: 'ended' })).toEqual([]);
  });

  it('a delta whose turn start was missed makes its bubble', () => {
    expect(applyDelta([], { runId: 'r2', agentId: 'dev', text: 'x' })).toEqual([{ runId: 'r2', agentId: 'dev', text: 'x' }]);
    const b: Bubble[] = [];
    expect(applyDelta(b, { runId: 'r2', agentId: 'dev', text: '' })).toBe(b);
  });

  it('the committed post replaces its author’s bubble, not others’', () => {
    const b: Bubble[] = [
      { runId: 'r1', agentId: 'lead-1', text: 'typing' },
      { runId: 'r2', agentId: 'dev', text: 'other' },
    ];
    expect(applyPost(b, makePost(9))).toEqual([{ runId: 'r2', agentId: 'dev', text: 'other' }]);
    expect(applyPost(b, makePost(9, { kind: 'user', authorAgentId: 'user' }))).toBe(b);
    expect(applyPost(b, makePost(9, { kind: 'system', authorAgentId: 'system' }))).toBe(b);
  });

  it('an ended turn of an unknown run changes nothing', () => {
    const b: Bubble[] = [{ runId: 'r1', agentId: 'a', text: '' }];
    expect(applyTurn(b, { runId: 'zz', agentId: 'a', status: 'ended' })).toBe(b);
  });
});

describe('post words', () => {
  it('styles a person’s, an agent’s and the orchestrator’s posts apart', () => {
    expect(postStyle(makePost(1, { kind: 'user', authorAgentId: 'user' }))).toBe('user');
    expect(postStyle(makePost(1))).toBe('agent');
    expect(postStyle(makePost(1, { kind: 'delegate' }))).toBe('agent');
    expect(postStyle(makePost(1, { kind: 'system', authorAgentId: 'system' }))).toBe('system');
  });

  it('names a delegation’s assignee by the member’s name', () => {
    const members = [{ agentId: 'dev-1', name: 'Dev', runtime: 'clawboo-mock', role: 'member' as const }];
    expect(assigneeLabel(makePost(1, { kind: 'delegate', assignee: 'dev-1' }), members)).toBe('→ @Dev');
    expect(assigneeLabel(makePost(1, { kind: 'delegate', assignee: '@Writer' }), members)).toBe('→ @Writer');
    expect(assigneeLabel(makePost(1, { kind: 'peer', assignee: 'dev-1' }), members)).toBe('');
    expect(assigneeLabel(makePost(1, { kind: 'delegate', assignee: null }), members)).toBe('');
    expect(assigneeLabel(makePost(1, { kind: 'delegate', assignee: 'x-9', assigneeName: 'Writer' }), members)).toBe('→ @Writer');
  });

  it('never shows an agent’s id for a member it cannot name', () => {
    const members = [{ agentId: 'dev-1', name: 'Dev', runtime: 'clawboo-mock', role: 'member' as const }];
    expect(assigneeLabel(makePost(1, { kind: 'delegate', assignee: 'agt_01HX9', assigneeName: 'agt_01HX9' }), members)).toBe('→ a former member');
    expect(assigneeLabel(makePost(1, { kind: 'delegate', assignee: 'dev-1', assigneeName: 'dev-1' }), members)).toBe('→ @Dev');
    expect(memberName('agt_01HX9', members)).toBe('A member');
    expect(memberName('dev-1', members)).toBe('Dev');
  });

  it('draws stop and merge notes as the orchestrator’s', () => {
    expect(postStyle(makePost(1, { kind: 'stop', authorAgentId: 'system' }))).toBe('system');
    expect(postStyle(makePost(1, { kind: 'merge', authorAgentId: 'dev-1' }))).toBe('system');
  });
});

describe('mission words', () => {
  it('says each state in words', () => {
    expect(stateWords({ state: 'idle' })).toBe('idle');
    expect(stateWords({ state: 'working', taskTitle: 'Fix the login' })).toBe('working on “Fix the login”');
    expect(stateWords({ state: 'working' })).toBe('working in the room');
    expect(stateWords({ state: 'waiting_approval' })).toBe('waiting for approval');
    expect(stateWords({ state: 'waiting_approval', taskTitle: 'Deploy' })).toBe('waiting for approval on “Deploy”');
    expect(stateWords({ state: 'over_budget' })).toBe('over budget');
    expect(stateWords({ state: 'not_ready' })).toBe('runtime not ready');
  });

  it('counts tasks in board order, leaving out zeros', () => {
    expect(taskCounts({ done: 2, todo: 1, backlog: 0, weird: 1, in_progress: 3 })).toEqual([
      { status: 'todo', n: 1 },
      { status: 'in_progress', n: 3 },
      { status: 'done', n: 2 },
      { status: 'weird', n: 1 },
    ]);
  });
});

describe('chat errors', () => {
  it('says why a message was not sent', () => {
    expect(chatErrorWords(new ApiError(409, 'team budget is paused', 'budget_paused'))).toMatch(/^Not sent: the team’s budget is paused \(team budget is paused\)/);
    expect(chatErrorWords(new ApiError(409, 'the team has no leader'))).toBe('Not sent: the team has no leader.');
    expect(chatErrorWords(new ApiError(503, 'claude-code is not installed.'))).toBe(
      'Not sent: the runtime is not ready (claude-code is not installed). Connect it on Runtimes.',
    );
    expect(chatErrorWords(new ApiError(0, 'cannot reach the Clawboo backend'))).toBe('Not sent: cannot reach the Clawboo backend.');
    expect(chatErrorWords(new ApiError(409, 'over budget', 'budget_paused'), true)).toMatch(/^Posted, but no one can answer: the team’s budget is paused/);
    expect(chatErrorWords(new ApiError(503, 'no such runtime', 'not_ready'), true)).toMatch(/^Posted, but no one can answer: the runtime is not ready/);
    expect(chatErrorWords(new ApiError(422, 'Claude Code five-hour window at 97 %, resets 14:20; deferred until then', 'quota'), true)).toBe(
      'Posted; the turn waits for quota: Claude Code five-hour window at 97 %, resets 14:20; deferred until then. It starts by itself then (Spend lists it).',
    );
  });
});

describe('a refused chat', () => {
  it('carries the person’s post when the backend kept it', async () => {
    const { ApiClient } = await import('../../lib/api/client');
    const { ChatRefusal } = await import('../../lib/api/teamClient');
    const post = { seq: 7, teamId: 't', authorAgentId: 'user', authorName: 'You', kind: 'user', body: 'hi', assignee: null, createdAt: 1 };
    const api = new ApiClient(
      async () => new Response(JSON.stringify({ ok: false, reason: 'budget_paused', error: 'team budget is paused', post }), { status: 409 }),
    );
    const err = await api.teams.chat('t', { message: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChatRefusal);
    expect((err as InstanceType<typeof ChatRefusal>).post?.seq).toBe(7);
    expect((err as InstanceType<typeof ChatRefusal>).reason).toBe('budget_paused');
    const plain = new ApiClient(async () => new Response(JSON.stringify({ error: 'the team has no leader: choose one first' }), { status: 409 }));
    const err2 = await plain.teams.chat('t', { message: 'hi' }).catch((e: unknown) => e);
    expect((err2 as InstanceType<typeof ChatRefusal>).post).toBeNull();
    expect(chatErrorWords(err2)).toBe('Not sent: the team has no leader: choose one first.');
  });
});

describe('stopping', () => {
  const member = (agentId: string, state: MissionMember['state'], runId?: string): MissionMember => ({
    agentId,
    name: agentId,
    runtime: 'clawboo-mock',
    role: 'member',
    state,
    ...(runId ? { runId } : {}),
  });

  it('counts as live only a member with a running or waiting run, and the turns still typing', () => {
    expect(isLive(member('a', 'idle'))).toBe(false);
    expect(isLive(member('a', 'not_ready'))).toBe(false);
    expect(isLive(member('a', 'working', 'r1'))).toBe(true);
    expect(isLive(member('a', 'waiting_approval', 'r2'))).toBe(true);
    const mission = { members: [member('a', 'working', 'r1'), member('b', 'idle')] };
    expect([...liveRuns(mission, [{ runId: 't1', agentId: 'b', text: '' }])].sort()).toEqual(['r1', 't1']);
    expect(liveRuns(null, []).size).toBe(0);
  });

  it('clears a stop’s note when the room moves on, not while its runs wind down', () => {
    const atStop = new Set(['r1']);
    expect(stopNoteStale(atStop, new Set(['r1']), 60_000)).toBe(false); // the stopped run is still winding down
    expect(stopNoteStale(atStop, new Set(), 1_000)).toBe(false); // gone, but the note was only just shown
    expect(stopNoteStale(atStop, new Set(), 4_000)).toBe(true); // gone and read: the states say the rest
    expect(stopNoteStale(atStop, new Set(['r1', 'r9']), 0)).toBe(true); // new work: the note would mislead
    expect(stopNoteStale(new Set(), new Set(), 3_999)).toBe(false); // "Nothing was running." is read too
    expect(stopNoteStale(new Set(), new Set(), 4_000)).toBe(true);
    expect(stoppedWords(0)).toBe('Nothing was running.');
    expect(stoppedWords(1)).toBe('Stopped 1 run.');
    expect(stoppedWords(3)).toBe('Stopped 3 runs.');
  });
});

describe('task ids in Clawboo’s posts', () => {
  it('are said as the task’s title, never as the id', () => {
    const id = '01JD8X5Q9W3K7M2N4P6R8T0V1B';
    const p = makePost(1, { authorAgentId: 'system', kind: 'system', body: `Task ${id} for @Dev did not start (attempt 1 of 3): aborted` });
    expect(taskIdsIn(p)).toEqual([id]);
    expect(namedBody(p, new Map())).toBe('Task a task for @Dev did not start (attempt 1 of 3): aborted');
    expect(namedBody(p, new Map([[id, { title: 'Add NOTES.md', status: 'todo', hasDiff: false }]]))).toBe(
      'Task “Add NOTES.md” for @Dev did not start (attempt 1 of 3): aborted',
    );
    // An agent's words are its own.
    const said = makePost(2, { body: `see ${id}` });
    expect(taskIdsIn(said)).toEqual([]);
    expect(namedBody(said, new Map())).toBe(`see ${id}`);
  });
});
