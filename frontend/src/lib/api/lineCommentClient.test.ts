import { describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from './client';
import { DecodeError } from './decode';

const C = { id: 'C1', taskId: 'a/b', path: 'src/x y.go', line: 3, side: 'new', body: 'fix', createdAt: 1, sentRunId: null, sentAt: null };

function fake(answers: [number, unknown][]) {
  const seen: { url: string; method: string; body: unknown }[] = [];
  const client = new ApiClient(async (url, init) => {
    seen.push({ url, method: init?.method ?? 'GET', body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    const [status, body] = answers.shift() ?? [200, {}];
    return new Response(JSON.stringify(body), { status });
  });
  return { client, seen };
}

describe('api.lineComments', () => {
  it('sends a general request back with the comments, trimmed, and none when blank', async () => {
    const { client, seen } = fake([
      [202, { runId: 'R2', sent: 0 }],
      [202, { runId: 'R3', sent: 1 }],
    ]);
    await client.lineComments.sendBack('T', '  Also say goodbye.  ');
    await client.lineComments.sendBack('T', '   ');
    expect(seen.map((s) => s.body)).toEqual([{ message: 'Also say goodbye.' }, {}]);
  });

  it('speaks each route with the right method, escaped URL and body', async () => {
    const { client, seen } = fake([
      [200, { comments: [C, { ...C, id: 'C2', side: 'old', sentRunId: 'R1', sentAt: 2 }] }],
      [201, { comment: C }],
      [200, { ok: true }],
      [202, { runId: 'R2', sent: 1 }],
    ]);
    const list = await client.lineComments.list('a/b');
    expect(list.map((c) => [c.id, c.side, c.sentRunId])).toEqual([
      ['C1', 'new', null],
      ['C2', 'old', 'R1'],
    ]);
    expect(await client.lineComments.add('a/b', { path: 'src/x y.go', line: 3, body: 'fix' })).toMatchObject({ id: 'C1' });
    await client.lineComments.remove('a/b', 'C 1');
    expect(await client.lineComments.sendBack('a/b')).toEqual({ runId: 'R2', sent: 1 });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/board/a%2Fb/line-comments',
      'POST /api/board/a%2Fb/line-comments',
      'DELETE /api/board/a%2Fb/line-comments/C%201',
      'POST /api/board/a%2Fb/send-back',
    ]);
    expect(seen[1]!.body).toEqual({ path: 'src/x y.go', line: 3, body: 'fix' });
  });

  it('carries a refusal’s reason and refuses a malformed answer', async () => {
    const { client } = fake([
      [400, { error: "path 'x' is not a file of the task's diff", reason: 'path_not_in_diff' }],
      [200, { comments: [{ ...C, side: 'left' }] }],
      [202, {}],
    ]);
    const err = await client.lineComments.add('T', { path: 'x', line: 1, body: 'b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, reason: 'path_not_in_diff' });
    await expect(client.lineComments.list('T')).rejects.toBeInstanceOf(DecodeError);
    await expect(client.lineComments.sendBack('T')).rejects.toBeInstanceOf(DecodeError);
  });
});
