import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { jsonRequest } from './mergeClient';
import { SettingsApi } from './settingsClient';
import { decodePortRange, decodeWorktreeDisk } from './settingsDecode';

const disk = {
  totalBytes: 7000,
  worktrees: [
    { taskId: 'T1', path: '/h/worktrees/abc/T1', repoPath: '/r', bytes: 5000, title: 'Add login', status: 'in_review' },
    { taskId: 'orphan', path: '/h/worktrees/abc/orphan', repoPath: '', bytes: 2000 },
  ],
  budgetBytesPerRepo: 524288000,
  depFolders: ['node_modules', '.venv'],
  janitor: {
    at: 1700000000000,
    report: {
      reclaimed: [
        { taskId: 'T1', repoPath: '/r', folders: ['node_modules'], bytes: 1200, removed: false },
        { taskId: 'T2', repoPath: '/r', folders: null, bytes: 300, removed: true },
      ],
      totalBytes: 1500,
    },
  },
  titles: { T1: 'Add login', T2: 'Old work' },
};

/** A SettingsApi over a fake fetch that answers by path and records what was asked. */
function fake(answers: Record<string, { status?: number; body: unknown }>) {
  const seen: { url: string; method: string; body?: unknown }[] = [];
  const api = new SettingsApi(
    jsonRequest(async (url, init) => {
      seen.push({ url: String(url), method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined });
      const a = answers[`${init?.method} ${url}`];
      if (!a) return new Response('{"error":"not here"}', { status: 404 });
      return new Response(JSON.stringify(a.body), { status: a.status ?? 200 });
    }),
  );
  return { api, seen };
}

describe('settings decoding', () => {
  it('decodes the worktrees, titles and the janitor report', () => {
    const d = decodeWorktreeDisk(disk);
    expect(d.worktrees[0]).toEqual(disk.worktrees[0]);
    expect(d.worktrees[1]).toMatchObject({ taskId: 'orphan', title: '', status: '' });
    expect(d.budgetBytesPerRepo).toBe(524288000);
    expect(d.depFolders).toEqual(['node_modules', '.venv']);
    expect(d.janitor?.at).toBe(1700000000000);
    expect(d.janitor?.totalBytes).toBe(1500);
    expect(d.janitor?.reclaimed[1]).toEqual({ taskId: 'T2', repoPath: '/r', folders: [], bytes: 300, removed: true });
    expect(d.titles).toEqual({ T1: 'Add login', T2: 'Old work' });
  });

  it('takes an answer without a report or titles (an older backend)', () => {
    const d = decodeWorktreeDisk({ totalBytes: 0, worktrees: [], budgetBytesPerRepo: 0, depFolders: [], janitor: null });
    expect(d).toEqual({ totalBytes: 0, worktrees: [], budgetBytesPerRepo: 0, depFolders: [], janitor: null, titles: {} });
  });

  it('refuses shapes it does not know', () => {
    expect(() => decodeWorktreeDisk({ worktrees: [] })).toThrow(/worktrees is not/);
    expect(() => decodeWorktreeDisk({ ...disk, worktrees: [{ taskId: 'x' }] })).toThrow(/worktree is not/);
    expect(() => decodeWorktreeDisk({ ...disk, janitor: { at: 1 } })).toThrow(/janitor is not/);
    expect(() => decodeWorktreeDisk({ ...disk, janitor: { at: 1, report: { reclaimed: [{ bytes: 1 }] } } })).toThrow(/janitor entry/);
    expect(() => decodePortRange({ first: 1, last: 2 })).toThrow(/port range/);
  });
});

describe('SettingsApi', () => {
  it('reads the worktrees, the budget and the port range', async () => {
    const { api, seen } = fake({
      'GET /api/worktrees': { body: disk },
      'GET /api/settings/worktree-budget': { body: { bytesPerRepo: 42 } },
      'GET /api/settings/port-range': { body: { first: 41000, last: 41999, block: 10 } },
    });
    expect((await api.worktrees()).totalBytes).toBe(7000);
    expect(await api.budget()).toBe(42);
    expect(await api.portRange()).toEqual({ first: 41000, last: 41999, block: 10 });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/worktrees',
      'GET /api/settings/worktree-budget',
      'GET /api/settings/port-range',
    ]);
  });

  it('saves the budget and the port range with PUT', async () => {
    const { api, seen } = fake({
      'PUT /api/settings/worktree-budget': { body: { bytesPerRepo: 524288000 } },
      'PUT /api/settings/port-range': { body: { first: 42000, last: 42099, block: 5 } },
    });
    expect(await api.setBudget(524288000)).toBe(524288000);
    expect(await api.setPortRange({ first: 42000, last: 42099, block: 5 })).toEqual({ first: 42000, last: 42099, block: 5 });
    expect(seen).toEqual([
      { url: '/api/settings/worktree-budget', method: 'PUT', body: { bytesPerRepo: 524288000 } },
      { url: '/api/settings/port-range', method: 'PUT', body: { first: 42000, last: 42099, block: 5 } },
    ]);
  });

  it('hands a refusal over in the backend’s words', async () => {
    const { api } = fake({
      'PUT /api/settings/port-range': { status: 400, body: { error: 'port range 80–90: use 1024 ≤ first ≤ last ≤ 65535', reason: 'invalid' } },
    });
    const err = await api.setPortRange({ first: 80, last: 90, block: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('port range 80–90: use 1024 ≤ first ≤ last ≤ 65535');
    expect((err as ApiError).status).toBe(400);
  });

  it('reads and switches start at login, and refuses shapes it does not know', async () => {
    const { api, seen } = fake({
      'GET /api/settings/autostart': { body: { enabled: false, supported: true, path: '/h/.config/autostart/clawboo.desktop' } },
      'PUT /api/settings/autostart': { body: { enabled: true, supported: true, path: '/h/.config/autostart/clawboo.desktop' } },
    });
    expect(await api.autostart()).toEqual({ enabled: false, supported: true, path: '/h/.config/autostart/clawboo.desktop', reason: '' });
    expect((await api.setAutostart(true)).enabled).toBe(true);
    expect(seen[1]).toEqual({ url: '/api/settings/autostart', method: 'PUT', body: { enabled: true } });
    const bad = fake({ 'GET /api/settings/autostart': { body: { enabled: 'yes' } } });
    await expect(bad.api.autostart()).rejects.toThrow(/start at login/);
  });
});
