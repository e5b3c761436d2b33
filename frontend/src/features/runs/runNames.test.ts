import { describe, expect, it } from 'vitest';
import { runAgent, runName, type RunNamer } from './runNames';

const n: RunNamer = {
  agent: (id) => ({ ag1: 'Ada Lovelace' })[id],
  task: (id) => ({ t1: 'Fix the login' } as Record<string, string>)[id] ?? (id === 'gone' ? null : undefined),
};
const run = (over: Partial<{ id: string; agentId: string | null; taskId: string | null; title: string; runtimeId: string }>) => ({
  id: '01J0000000000000000000RUN1',
  agentId: null,
  taskId: null,
  title: '',
  runtimeId: 'clawboo-mock',
  ...over,
});

describe('run names', () => {
  it('names a task’s run by the task’s title', () => {
    expect(runName(run({ taskId: 't1', title: 'whatever', agentId: 'ag1' }), n)).toBe('Fix the login');
  });

  it('falls back to the run’s own title while the task is unknown or gone', () => {
    expect(runName(run({ taskId: 'far', title: 'Fix it now' }), n)).toBe('Fix it now');
    expect(runName(run({ taskId: 'gone', title: 'Fix it now' }), n)).toBe('Fix it now');
  });

  it('says "<agent> on <runtime>" for a run with no title, never a bare id', () => {
    expect(runName(run({ agentId: 'ag1' }), n)).toBe('Ada Lovelace on clawboo-mock');
    expect(runName(run({ agentId: 'ag1', title: '01J0000000000000000000RUN1' }), n)).toBe('Ada Lovelace on clawboo-mock');
    expect(runName(run({ agentId: 'ag1', title: '01HZZZZZZZZZZZZZZZZZZZZZZZ' }), n)).toBe('Ada Lovelace on clawboo-mock');
    expect(runName(run({}), n)).toBe('A run on clawboo-mock');
    expect(runName(run({ agentId: 'ag9' }), n)).toBe('a removed agent on clawboo-mock');
  });

  it('names the agent, never its id', () => {
    expect(runAgent(run({ agentId: 'ag1' }), n)).toBe('Ada Lovelace');
    expect(runAgent(run({ agentId: 'ag9' }), n)).toBe('a removed agent');
    expect(runAgent(run({}), n)).toBe('');
  });
});
