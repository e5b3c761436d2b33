import { describe, expect, it } from 'vitest';
import { jsonRequest } from './mergeClient';
import { OpenApi } from './openClient';

function fake(status: number, body: unknown) {
  const seen: { url: string; method: string; body: unknown }[] = [];
  const api = new OpenApi(
    jsonRequest(async (url, init) => {
      seen.push({ url, method: init?.method ?? 'GET', body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
      return new Response(JSON.stringify(body), { status });
    }),
  );
  return { api, seen };
}

describe('OpenApi', () => {
  it('names only what to open, never a path', async () => {
    const { api, seen } = fake(200, { opened: false, command: "cd '/w/x' && $SHELL" });
    expect(await api.open('T 1', 'terminal')).toEqual({ opened: false, command: "cd '/w/x' && $SHELL" });
    expect(seen).toEqual([{ url: '/api/board/T%201/open', method: 'POST', body: { what: 'terminal' } }]);
  });

  it('reads what can be opened, and a task with nothing to open', async () => {
    const live = fake(200, { available: true, path: '/w/x', desktop: false, previewPort: 41000, previewListening: true });
    expect(await live.api.info('T1')).toEqual({ available: true, path: '/w/x', desktop: false, previewPort: 41000, previewListening: true });
    const none = fake(200, { available: false, why: 'no worktree' });
    expect(await none.api.info('T1')).toMatchObject({ available: false, why: 'no worktree' });
  });
});
