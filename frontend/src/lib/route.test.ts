import { describe, expect, it } from 'vitest';
import { parseHash, routeHash } from './route';

describe('routes', () => {
  it('parses the known pages and defaults to runs', () => {
    expect(parseHash('')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs')).toEqual({ page: 'runs', runId: null });
    expect(parseHash('#/runs/01ABC')).toEqual({ page: 'runs', runId: '01ABC' });
    expect(parseHash('#/runs/01ABC/')).toEqual({ page: 'runs', runId: '01ABC' });
    expect(parseHash('#/runtimes')).toEqual({ page: 'runtimes' });
    expect(parseHash('#/nowhere')).toEqual({ page: 'runs', runId: null });
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

  it('round-trips', () => {
    for (const h of ['#/approvals', '#/openclaw', '#/runs', '#/runs/a%20b', '#/runtimes', '#/board', '#/board/a%2Fb', '#/spend', '#/agents', '#/agents/x-1']) {
      expect(routeHash(parseHash(h))).toBe(h);
    }
  });
});
