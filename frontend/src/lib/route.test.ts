import { describe, expect, it } from 'vitest';
import { isDefaultHash, parseHash, routeHash } from './route';

describe('routes', () => {
  it('parses the known pages and defaults to runs', () => {
    expect(parseHash('')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs/01ABC')).toEqual({ page: 'runs', runId: '01ABC' });
    expect(parseHash('#/runs/01ABC/')).toEqual({ page: 'runs', runId: '01ABC' });
    expect(parseHash('#/runtimes')).toEqual({ page: 'runtimes' });
    expect(parseHash('#//')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs/%E0%A4%A')).toEqual({ page: 'runs', runId: '%E0%A4%A' });
  });

  it('parses the board, a task drawer and the spend page', () => {
    expect(parseHash('#/board')).toEqual({ page: 'board', taskId: null });
    expect(parseHash('#/board/')).toEqual({ page: 'board', taskId: null });
    expect(parseHash('#/board/01TASK')).toEqual({ page: 'board', taskId: '01TASK' });
    expect(parseHash('#board/01TASK/extra')).toEqual({ page: 'board', taskId: '01TASK' });
    expect(parseHash('#/board/a%2Fb')).toEqual({ page: 'board', taskId: 'a/b' });
    expect(parseHash('#/board/%E0%A4%A')).toEqual({ page: 'board', taskId: '%E0%A4%A' });
    expect(parseHash('#/spend')).toEqual({ page: 'spend' });
    expect(parseHash('#/spend/anything')).toEqual({ page: 'spend' });
  });

  it('parses the agents page and an agent', () => {
    expect(parseHash('#/agents')).toEqual({ page: 'agents', agentId: null });
    expect(parseHash('#/agents/')).toEqual({ page: 'agents', agentId: null });
    expect(parseHash('#/agents/code-reviewer-k3x9q2')).toEqual({ page: 'agents', agentId: 'code-reviewer-k3x9q2' });
    expect(parseHash('#agents/a%20b/extra')).toEqual({ page: 'agents', agentId: 'a b' });
  });

  it('parses the approvals page', () => {
    expect(parseHash('#/approvals')).toEqual({ page: 'approvals' });
    expect(parseHash('#approvals/anything')).toEqual({ page: 'approvals' });
  });

  it('parses the OpenClaw activity page', () => {
    expect(parseHash('#/openclaw')).toEqual({ page: 'openclaw' });
    expect(parseHash('#openclaw/anything')).toEqual({ page: 'openclaw' });
  });

  it('parses the settings page', () => {
    expect(parseHash('#/settings')).toEqual({ page: 'settings' });
    expect(parseHash('#settings/anything')).toEqual({ page: 'settings' });
    expect(routeHash({ page: 'settings' })).toBe('#/settings');
  });

  it('parses teams, a team room and the welcome', () => {
    expect(parseHash('#/teams')).toEqual({ page: 'teams', teamId: null });
    expect(parseHash('#/teams/')).toEqual({ page: 'teams', teamId: null });
    expect(parseHash('#/teams/team-01ABC')).toEqual({ page: 'teams', teamId: 'team-01ABC' });
    expect(parseHash('#teams/a%20b/extra')).toEqual({ page: 'teams', teamId: 'a b' });
    expect(parseHash('#/welcome')).toEqual({ page: 'welcome' });
    expect(parseHash('#/welcome/anything')).toEqual({ page: 'welcome' });
  });

  it('parses the board’s team filter', () => {
    expect(parseHash('#/board?team=t1')).toEqual({ page: 'board', taskId: null, teamId: 't1' });
    expect(parseHash('#/board/01TASK?team=t%201')).toEqual({ page: 'board', taskId: '01TASK', teamId: 't 1' });
    expect(parseHash('#/board?team=')).toEqual({ page: 'board', taskId: null, teamId: '' });
    expect(parseHash('#/board?other=1')).toEqual({ page: 'board', taskId: null });
    expect('teamId' in parseHash('#/board')).toBe(false);
    expect(routeHash({ page: 'board', taskId: null, teamId: 'a/b' })).toBe('#/board?team=a%2Fb');
    expect(routeHash({ page: 'board', taskId: 'x', teamId: 't' })).toBe('#/board/x?team=t');
    expect(routeHash({ page: 'board', taskId: 'x', teamId: 't', show: 'diff' })).toBe('#/board/x?team=t&show=diff');
    expect(parseHash('#/board/x?team=t&show=diff')).toEqual({ page: 'board', taskId: 'x', teamId: 't', show: 'diff' });
    expect(parseHash('#/board?show=diff')).toEqual({ page: 'board', taskId: null });
  });

  it('calls an unknown route not found, keeping what was asked for', () => {
    expect(parseHash('#/nowhere')).toEqual({ page: 'notfound', path: 'nowhere' });
    expect(parseHash('#/Board')).toEqual({ page: 'notfound', path: 'Board' });
    expect(parseHash('#/no/such?x=1')).toEqual({ page: 'notfound', path: 'no/such?x=1' });
    expect(routeHash(parseHash('#/nowhere'))).toBe('#/nowhere');
  });

  it('knows the bare URL', () => {
    for (const h of ['', '#', '#/', '#//']) expect(isDefaultHash(h)).toBe(true);
    for (const h of ['#/runs', '#/board', '#/teams/x', '#/welcome']) expect(isDefaultHash(h)).toBe(false);
  });

  it('round-trips', () => {
    for (const h of ['#/teams', '#/teams/t%201', '#/welcome', '#/board?team=t1', '#/board/x?team=t1', '#/approvals', '#/routines', '#/openclaw', '#/settings', '#/runs', '#/runs/a%20b', '#/runtimes', '#/board', '#/board/a%2Fb', '#/spend', '#/agents', '#/agents/x-1']) {
      expect(routeHash(parseHash(h))).toBe(h);
    }
  });
});
