import { describe, expect, it } from 'vitest';
import { makeTask } from '../testing/fixtures';
import { ApiError } from './errors';
import { conflictFiles, jsonRequest, MergeApi } from './mergeClient';

function fake(status: number, body: unknown) {
  const seen: { url: string; method: string; body: unknown }[] = [];
  const api = new MergeApi(
    jsonRequest(async (url, init) => {
      seen.push({ url, method: init?.method ?? 'GET', body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
      return new Response(JSON.stringify(body), { status });
    }),
  );
  return { api, seen };
}

describe('MergeApi', () => {
  it('posts the strategy and decodes the merge', async () => {
    const task = makeTask({ id: 'T 1', status: 'done' });
    const { api, seen } = fake(200, { task, merge: { base: 'main', previous: 'a', commit: 'b', how: 'squash' } });
    const r = await api.merge('T 1', 'squash');
    expect(seen).toEqual([{ url: '/api/board/T%201/merge', method: 'POST', body: { strategy: 'squash' } }]);
    expect(r.merge.how).toBe('squash');
    expect(r.task.status).toBe('done');
  });

  it('keeps a conflict’s files', async () => {
    const { api } = fake(409, { error: 'do not apply cleanly', reason: 'merge_conflict', files: ['a.txt', 'b c.txt', 3], base: 'main' });
    const err = await api.merge('T1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).reason).toBe('merge_conflict');
    expect(conflictFiles(err)).toEqual(['a.txt', 'b c.txt']);
    expect(conflictFiles(new ApiError(409, 'x', 'checkout_dirty', { files: ['a'] }))).toEqual([]);
  });

  it('sends a picked base only when one is given, and reads the branches', async () => {
    const task = makeTask({ id: 'T1', status: 'done' });
    const { api, seen } = fake(200, { task, merge: { base: 'release', previous: 'a', commit: 'b', how: 'ff' } });
    await api.merge('T1', '', 'release');
    expect(seen[0]?.body).toEqual({ base: 'release' });
    const b = fake(200, { base: 'main', branches: ['main', 'release', 7] });
    expect(await b.api.branches('T1')).toEqual({ base: 'main', branches: ['main', 'release'] });
    expect(b.seen[0]).toMatchObject({ url: '/api/board/T1/branches', method: 'GET' });
  });

  it('names the files of an overlap with uncommitted edits', async () => {
    const { api } = fake(409, { error: 'uncommitted edits', reason: 'checkout_overlap', files: ['hello.txt'] });
    expect(conflictFiles(await api.merge('T1').catch((e: unknown) => e))).toEqual(['hello.txt']);
  });

  it('decodes a push without a pull request, with its hint', async () => {
    const { api } = fake(200, { pushed: true, remote: 'origin', branch: 'clawboo/task-T1', base: 'main', pr: null, hint: 'Install gh' });
    expect(await api.pullRequest('T1')).toEqual({ pushed: true, remote: 'origin', branch: 'clawboo/task-T1', base: 'main', pr: null, hint: 'Install gh' });
  });
});
