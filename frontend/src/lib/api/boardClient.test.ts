import { describe, expect, it } from 'vitest';
import { makeRun, makeTask } from '../testing/fixtures';
import { decodeBoardEvent, decodeBudgetEvent, decodeTaskDetail } from './boardDecode';
import { ApiClient, ApiError } from './client';
import { DecodeError } from './decode';

interface Seen {
  url: string;
  method: string;
  body: unknown;
}

/** A fetch answering every request with one canned response, recording what was asked. */
function fake(status: number, body: unknown) {
  const seen: Seen[] = [];
  const client = new ApiClient(async (url, init) => {
    seen.push({ url, method: init?.method ?? 'GET', body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return new Response(JSON.stringify(body), { status });
  });
  return { client, seen };
}

const TASK = makeTask({ id: 'T1' });
const BUDGET = { scope: 'agent', scopeId: 'a b', limitUsd: 5, spentUsd: 0, mode: 'cap', status: 'ok', createdAt: 1, updatedAt: 1 };

describe('ApiClient board', () => {
  it('carries a refusal’s reason beside its words', async () => {
    const { client } = fake(409, { error: 'a task cannot move from backlog to done', reason: 'illegal_transition' });
    const err = await client.patchTask('T1', { status: 'done' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, reason: 'illegal_transition', message: 'a task cannot move from backlog to done' });
    const plain = await fake(404, { error: 'nope' }).client.getTask('x').catch((e: unknown) => e);
    expect((plain as ApiError).reason).toBe('');
  });

  it('speaks each route with the right method, escaped URL and body', async () => {
    const { client, seen } = fake(200, { task: TASK });
    await client.createTask({ title: 't', kind: 'code', repoPath: '/r' });
    await client.patchTask('a/b', { status: 'todo' });
    await client.addDependency('a/b', 'c');
    await client.removeDependency('a/b', 'c/d');
    expect(seen).toEqual([
      { url: '/api/board', method: 'POST', body: { title: 't', kind: 'code', repoPath: '/r' } },
      { url: '/api/board/a%2Fb', method: 'PATCH', body: { status: 'todo' } },
      { url: '/api/board/a%2Fb/deps', method: 'POST', body: { dependsOnTaskId: 'c' } },
      { url: '/api/board/a%2Fb/deps/c%2Fd', method: 'DELETE', body: undefined },
    ]);
  });

  it('starts a task run without waiting', async () => {
    const { client, seen } = fake(202, { runId: 'r1' });
    expect(await client.runTask('clawboo-mock', { taskId: 'T1', message: '!ok' })).toEqual({ runId: 'r1' });
    expect(seen[0]).toEqual({ url: '/api/runtimes/clawboo-mock/run', method: 'POST', body: { taskId: 'T1', message: '!ok', wait: false } });
  });

  it('lists tasks by status and reads the folder picker with an escaped path', async () => {
    const list = fake(200, { tasks: [TASK], nextCursor: 'c2', counts: { todo: 7 } });
    const page = await list.client.listTasks({ status: ['todo', 'blocked'] });
    expect(page.tasks[0]?.id).toBe('T1');
    expect(page.nextCursor).toBe('c2');
    expect(page.counts.todo).toBe(7);
    expect(list.seen[0]?.url).toBe('/api/board?status=todo,blocked');
    await list.client.listTasks({ status: ['done'], q: 'a b', order: 'recent', limit: 50, cursor: 'x=' });
    expect(list.seen[1]?.url).toBe('/api/board?status=done&q=a+b&order=recent&cursor=x%3D&limit=50');
    const browse = fake(200, { path: '/a b', parent: '/', isRepo: false, branch: null, entries: [] });
    await browse.client.browseRepos('/a b');
    await browse.client.browseRepos();
    expect(browse.seen.map((s) => s.url)).toEqual(['/api/repos/browse?path=%2Fa%20b', '/api/repos/browse']);
  });

  it('builds spend queries and budget URLs', async () => {
    const spend = fake(200, { by: 'day', rows: [], totalUsd: 0 });
    await spend.client.spend('day', { since: '2026-11-01' });
    await spend.client.spend('runtime');
    expect(spend.seen.map((s) => s.url)).toEqual(['/api/spend?by=day&since=2026-11-01', '/api/spend?by=runtime']);
    const b = fake(200, { budget: BUDGET, willRepause: true, ok: true });
    await b.client.setBudget({ scope: 'agent', scopeId: 'a b', limitUsd: 5, mode: 'cap' });
    expect(await b.client.resumeBudget('agent', 'a b', 1)).toMatchObject({ willRepause: true, budget: { scopeId: 'a b' } });
    await b.client.deleteBudget('agent', 'a b');
    expect(b.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /api/budgets',
      'POST /api/budgets/agent/a%20b/resume',
      'DELETE /api/budgets/agent/a%20b',
    ]);
    expect(b.seen[1]?.body).toEqual({ graceUsd: 1 });
  });
});

describe('board decoding', () => {
  it('reads a task detail, keeping only known moves', () => {
    const d = decodeTaskDetail({
      task: TASK,
      comments: [{ id: 'c', taskId: 'T1', authorType: 'user', authorId: null, body: 'hi', createdAt: 1 }],
      runs: [makeRun({ id: 'r' })],
      worktree: null,
      children: [],
      moves: ['todo', 'teleported'],
    });
    expect(d.moves).toEqual(['todo']);
    expect(d.runs[0]?.id).toBe('r');
    expect(() => decodeTaskDetail({ task: { ...TASK, status: 'weird' }, comments: [], runs: [], children: [], moves: [] })).toThrow(
      DecodeError,
    );
    expect(() => decodeTaskDetail({ task: TASK, comments: 'x', runs: [], children: [], moves: [] })).toThrow(/comments is not a list/);
  });

  it('labels a task’s runs with their role and reads its critic setting', () => {
    const d = decodeTaskDetail({
      task: { ...TASK, critic: 'on' },
      comments: [],
      runs: [makeRun({ id: 'review', taskId: null, role: 'critic' }), makeRun({ id: 'work', role: 'task' }), makeRun({ id: 'old' })],
      worktree: null,
      children: [],
      moves: [],
    });
    expect(d.task.critic).toBe('on');
    expect(d.runs.map((r) => [r.id, r.role])).toEqual([
      ['review', 'critic'],
      ['work', 'task'],
      ['old', 'task'],
    ]);
    // An older server sends no critic, or an unknown one: auto.
    const { critic: _, ...old } = TASK;
    expect(decodeTaskDetail({ task: old, comments: [], runs: [], children: [], moves: [] }).task.critic).toBe('auto');
    expect(decodeTaskDetail({ task: { ...TASK, critic: 'maybe' }, comments: [], runs: [], children: [], moves: [] }).task.critic).toBe('auto');
  });

  it('sends the critic setting on create and patch', async () => {
    const { client, seen } = fake(200, { task: TASK });
    await client.createTask({ title: 't', critic: 'on' });
    await client.patchTask('T1', { critic: 'off' });
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/api/board', { title: 't', critic: 'on' }],
      ['PATCH', '/api/board/T1', { critic: 'off' }],
    ]);
  });

  it('reads a terminal task, whose moves Go sends as null', () => {
    const done = decodeTaskDetail({ task: { ...TASK, status: 'done' }, comments: [], runs: [], worktree: null, children: [], moves: null });
    expect(done.moves).toEqual([]);
  });

  it('reads live board and budget events', () => {
    expect(decodeBoardEvent({ kind: 'task', task: TASK })).toEqual({ kind: 'task', task: TASK });
    expect(decodeBoardEvent({ kind: 'comment', comment: { id: 'c', taskId: 'T1', body: 'x' } }).kind).toBe('comment');
    expect(() => decodeBoardEvent({ kind: 'other' })).toThrow(DecodeError);
    expect(decodeBudgetEvent({ kind: 'budget-deleted', budget: BUDGET }).kind).toBe('budget-deleted');
    expect(() => decodeBudgetEvent({ kind: 'budget', budget: {} })).toThrow(DecodeError);
  });
});
