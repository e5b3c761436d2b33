import { describe, expect, it, vi } from 'vitest';
import { makeTask } from '../../lib/testing/fixtures';
import { TaskNames } from './taskNames.svelte';

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('task names', () => {
  it('uses the board’s record when loaded, asking nothing', () => {
    const getTask = vi.fn();
    const n = new TaskNames({ getTask }, (id) => (id === 'a' ? makeTask({ id: 'a', title: 'Loaded' }) : undefined));
    expect(n.title('a')).toBe('Loaded');
    expect(getTask).not.toHaveBeenCalled();
  });

  it('asks the API once for a task the board has not loaded, and keeps the answer', async () => {
    const getTask = vi.fn(async (id: string) => ({ task: makeTask({ id, title: `Title of ${id}` }) }));
    const n = new TaskNames({ getTask });
    expect(n.title('far')).toBeUndefined();
    expect(n.title('far')).toBeUndefined();
    await flush();
    expect(n.title('far')).toBe('Title of far');
    expect(getTask).toHaveBeenCalledTimes(1);
  });

  it('remembers a missing task, and asks again after a failure that is not 404', async () => {
    let fail: number = 404;
    const getTask = vi.fn(async () => {
      throw Object.assign(new Error('x'), { status: fail });
    });
    const n = new TaskNames({ getTask });
    n.title('gone');
    await flush();
    expect(n.title('gone')).toBeNull();
    fail = 500;
    n.title('flaky');
    await flush();
    expect(n.title('flaky')).toBeUndefined();
    await flush();
    expect(getTask).toHaveBeenCalledTimes(3);
  });

  it('has no title for no id', () => {
    expect(new TaskNames({ getTask: vi.fn() }).title('')).toBeNull();
  });
});
