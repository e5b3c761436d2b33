import { describe, expect, it } from 'vitest';
import { ApprovalNames } from './approvalNames.svelte';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('ApprovalNames', () => {
  it('names an agent and a task from their ids, reading each list once', async () => {
    let agentReads = 0;
    const taskReads: string[] = [];
    const names = new ApprovalNames({
      listAgents: async () => {
        agentReads++;
        return [{ id: 'agt_01HX', name: 'Coder' }];
      },
      getTask: async (id) => {
        taskReads.push(id);
        return { task: { title: 'Add NOTES.md' } } as never;
      },
    });
    expect(names.agentName('agt_01HX')).toBeUndefined();
    expect(names.taskTitle('tsk_9')).toBeUndefined();
    await tick();
    await tick();
    expect(names.agentName('agt_01HX')).toBe('Coder');
    expect(names.taskTitle('tsk_9')).toBe('Add NOTES.md');
    names.agentName('agt_01HX');
    names.taskTitle('tsk_9');
    expect(agentReads).toBe(1);
    expect(taskReads).toEqual(['tsk_9']);
  });

  it('reads the agents again for an unknown id, but not at once', async () => {
    let now = 0;
    let reads = 0;
    const names = new ApprovalNames(
      { listAgents: async () => (reads++, []), getTask: async () => ({}) as never },
      () => now,
    );
    names.agentName('x');
    await tick();
    names.agentName('x');
    await tick();
    expect(reads).toBe(1);
    now = 6_000;
    names.agentName('x');
    await tick();
    expect(reads).toBe(2);
  });
});
