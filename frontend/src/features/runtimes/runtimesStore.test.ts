import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../lib/api/client';
import type { RuntimesResponse } from '../../lib/api/types';
import { makeAcpRuntime, makeRuntime } from '../../lib/testing/fixtures';
import { RuntimesStore } from './runtimes.svelte';

const VAULT = { backend: 'file', detail: '', probing: false } as const;

/** A store whose GETs the test answers by hand. */
function harness() {
  const answers: ((r: RuntimesResponse) => void)[] = [];
  const api = {
    runtimes: () => new Promise<RuntimesResponse>((ok) => answers.push(ok)),
    openclaw: { status: () => Promise.reject(new Error('none')) },
  } as unknown as ApiClient;
  return { store: new RuntimesStore(api), answers };
}

describe('RuntimesStore', () => {
  it('lists an ACP agent just added, and an older GET in flight does not unlist it', async () => {
    const { store, answers } = harness();
    const claude = makeRuntime();
    const first = store.load();
    answers.shift()!({ runtimes: [claude], available: [], vault: VAULT });
    await first;
    const stale = store.load();
    const mine = makeAcpRuntime();
    store.insert(mine);
    expect(store.list.map((r) => r.id)).toEqual(['claude-code', 'acp-my-agent']);
    answers.shift()!({ runtimes: [claude], available: [], vault: VAULT });
    await stale;
    expect(store.list.map((r) => r.id)).toEqual(['claude-code', 'acp-my-agent']);

    store.insert({ ...mine, name: 'Renamed' });
    expect(store.list.map((r) => r.name)).toEqual(['Claude Code', 'Renamed']);
    store.drop('acp-my-agent');
    expect(store.list.map((r) => r.id)).toEqual(['claude-code']);
  });
});
