import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../lib/api/client';
import { makePost } from '../../lib/testing/fixtures';
import { RoomStore } from './room.svelte';

const team = {
  id: 't',
  name: 'Crew',
  leaderAgentId: 'lead-1',
  brief: '',
  repoPath: null,
  createdAt: 1,
  updatedAt: 1,
  members: [{ agentId: 'lead-1', name: 'Lead', runtime: 'clawboo-mock', role: 'leader' }],
};
const mission = { team, members: [{ ...team.members[0], state: 'idle' }], costTodayUsd: 0, tasks: {}, recentTasks: [] };
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => makePost(a + i, { teamId: 't' }));
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A backend for one room: paged history, mission control, and a stream the test writes to. */
function backend() {
  const calls: string[] = [];
  const streamHeaders: (string | null)[] = [];
  let push: (text: string) => void = () => {};
  let end: () => void = () => {};
  const fetchFn = async (url: string, init?: RequestInit): Promise<Response> => {
    calls.push(url);
    const json = (v: unknown) => new Response(JSON.stringify(v), { status: 200 });
    if (url === '/api/teams/t') return json({ team });
    if (url === '/api/teams/t/mission') return json(mission);
    if (url.startsWith('/api/teams/t/chat?')) {
      const after = Number(new URLSearchParams(url.split('?')[1]).get('after'));
      return after === 0 ? json({ posts: range(1, 500), more: true }) : json({ posts: range(after + 1, 600), more: false });
    }
    if (url === '/api/teams/t/chat/stream') {
      streamHeaders.push(new Headers(init?.headers).get('Last-Event-ID'));
      const enc = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          push = (text) => c.enqueue(enc.encode(text));
          end = () => c.close();
          init?.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
        },
      });
      return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    }
    return new Response(JSON.stringify({ error: `no ${url}` }), { status: 404 });
  };
  const ev = (name: string, data: unknown, id?: number) => push(`event: ${name}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
  return { api: new ApiClient(fetchFn), fetchFn, calls, streamHeaders, ev, end: () => end() };
}

describe('RoomStore', () => {
  it('reads the history page by page, then follows the stream from the last seq without showing a post twice', async () => {
    const b = backend();
    const room = new RoomStore(b.api, 't', b.fetchFn);
    await room.start();
    try {
      expect(room.posts).toHaveLength(600);
      expect(room.team?.name).toBe('Crew');
      expect(b.calls.filter((c) => c.startsWith('/api/teams/t/chat?'))).toEqual([
        '/api/teams/t/chat?after=0&limit=500',
        '/api/teams/t/chat?after=500&limit=500',
      ]);
      await wait(20);
      expect(b.streamHeaders).toEqual(['600']);

      // A turn starts, types, and commits its post; a copy of an old post changes nothing.
      b.ev('turn', { runId: 'r1', agentId: 'lead-1', status: 'running' });
      b.ev('delta', { runId: 'r1', agentId: 'lead-1', text: 'Hel' });
      b.ev('delta', { runId: 'r1', agentId: 'lead-1', text: 'lo' });
      await wait(20);
      expect(room.bubbles).toEqual([{ runId: 'r1', agentId: 'lead-1', text: 'Hello' }]);
      b.ev('post', makePost(600, { teamId: 't', body: 'a copy' }), 600);
      b.ev('post', makePost(601, { teamId: 't', body: 'Hello' }), 601);
      await wait(20);
      expect(room.posts).toHaveLength(601);
      expect(room.posts.at(-1)!.body).toBe('Hello');
      expect(room.posts[599]!.body).toBe('post 600');
      expect(room.bubbles).toEqual([]);
      expect(room.latest?.seq).toBe(601);

      // The POST's answer for a post the stream already brought is dropped too.
      room.addPosts([makePost(601, { teamId: 't' })]);
      expect(room.posts).toHaveLength(601);

      // turn and board events re-read mission control, once per burst.
      const missions = () => b.calls.filter((c) => c === '/api/teams/t/mission').length;
      const before = missions();
      b.ev('turn', { runId: 'r1', agentId: 'lead-1', status: 'ended' });
      b.ev('board', { taskId: 'k', title: 'x', status: 'todo', assigneeAgentId: null });
      await wait(450);
      expect(missions()).toBe(before + 1);
      expect(room.mission?.members[0]?.state).toBe('idle');

      // The connection drops: the reconnect resumes after the last post, and a bubble left over goes.
      b.ev('delta', { runId: 'r2', agentId: 'lead-1', text: 'half a' });
      await wait(20);
      expect(room.bubbles).toHaveLength(1);
      b.end();
      await wait(1_300);
      expect(b.streamHeaders).toEqual(['600', '601']);
      expect(room.bubbles).toEqual([]);
    } finally {
      room.stop();
    }
  });

  it('says why a room cannot be shown, and does not keep asking for an unknown team', async () => {
    const api = new ApiClient(async () => new Response(JSON.stringify({ error: "unknown team 'x'" }), { status: 404 }));
    const room = new RoomStore(api, 'x');
    await room.start();
    room.stop();
    expect(room.error).toBe("unknown team 'x'");
    expect(room.loaded).toBe(false);
  });
});
