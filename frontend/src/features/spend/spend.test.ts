import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../lib/api/client';
import type { LiveEvents } from '../../lib/live.svelte';
import { SpendStore } from './spend.svelte';

const STORAGE = {
  databaseBytes: 5 << 20,
  walBytes: 1 << 20,
  freeBytes: 4096,
  worktreeBytes: 123,
  retention: { compactAfterHours: 24, compactOverBytes: 1 << 20 },
};

/** An API answering the Spend page's reads from canned bodies, by path. */
function api(bodies: Record<string, unknown>): ApiClient {
  return new ApiClient(async (url) => {
    const path = url.split('?')[0]!;
    const body = bodies[path];
    if (body === undefined) return new Response(JSON.stringify({ error: `no ${path}` }), { status: 404 });
    return new Response(JSON.stringify(body), { status: 200 });
  });
}

const spend = { by: 'day', rows: [], totalUsd: 0 };

describe('SpendStore', () => {
  it('reads the database size beside the worktrees', async () => {
    const s = new SpendStore(
      api({
        '/api/spend': spend,
        '/api/worktrees': { totalBytes: 123, worktrees: [] },
        '/api/storage': STORAGE,
        '/api/budgets': { budgets: [] },
      }),
      {} as LiveEvents,
    );
    await s.refresh();
    expect(s.error).toBe('');
    expect(s.storage).toEqual(STORAGE);
    expect(s.worktrees?.totalBytes).toBe(123);
  });

  it('says why when the storage answer is malformed', async () => {
    const s = new SpendStore(
      api({
        '/api/spend': spend,
        '/api/worktrees': { totalBytes: 0, worktrees: [] },
        '/api/storage': { databaseBytes: 'lots' },
        '/api/budgets': { budgets: [] },
      }),
      {} as LiveEvents,
    );
    await s.refresh();
    expect(s.error).toMatch(/storage is not/);
    expect(s.storage).toBeNull();
  });
});
