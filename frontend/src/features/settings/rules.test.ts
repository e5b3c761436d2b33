import { describe, expect, it } from 'vitest';
import { blocksIn, checkGrace, checkPortRange, graceWords, janitorSummary, statusWords } from './rules';

describe('checkPortRange', () => {
  it('takes a good range', () => {
    expect(checkPortRange('42000', ' 42099 ', '5')).toEqual({ range: { first: 42000, last: 42099, block: 5 } });
    expect(blocksIn({ first: 42000, last: 42099, block: 5 })).toBe(20);
    expect(blocksIn({ first: 41000, last: 41999, block: 10 })).toBe(100);
  });

  it('says what is wrong, in words', () => {
    expect(checkPortRange('', '2', '1')).toEqual({ error: 'The first port must be a whole number, like 41000.' });
    expect(checkPortRange('41000', '4.5', '1')).toEqual({ error: 'The last port must be a whole number, like 41999.' });
    expect(checkPortRange('41000', '41999', 'ten')).toEqual({ error: 'The block size must be a whole number of ports, like 10.' });
    expect(checkPortRange('80', '90', '1')).toEqual({ error: 'The first port, 80, is reserved for the system: use 1024 or more.' });
    expect(checkPortRange('2000', '70000', '1')).toEqual({ error: 'The last port, 70000, does not exist: ports end at 65535.' });
    expect(checkPortRange('5000', '4000', '1')).toEqual({ error: 'The first port (5000) is after the last (4000).' });
    expect(checkPortRange('5000', '6000', '0')).toEqual({ error: 'A block of 0 ports: use 1 to 1000.' });
    expect(checkPortRange('5000', '5004', '10')).toEqual({ error: 'Ports 5000–5004 are fewer than one block of 10.' });
  });
});

describe('janitorSummary', () => {
  it('counts worktrees and says when', () => {
    const at = new Date(2026, 11, 2, 14, 2).getTime();
    const run = {
      at,
      totalBytes: 1.2 * 1024 ** 3,
      reclaimed: [
        { taskId: 'a', repoPath: '/r', folders: ['node_modules'], bytes: 1, removed: false },
        { taskId: 'b', repoPath: '/r', folders: ['dist'], bytes: 1, removed: false },
        { taskId: 'b', repoPath: '/r', folders: [], bytes: 1, removed: true },
        { taskId: 'c', repoPath: '/r', folders: [], bytes: 1, removed: true },
      ],
    };
    expect(janitorSummary(run, at + 60_000)).toBe('Reclaimed 1.2 GB from 3 worktrees at 14:02');
    expect(janitorSummary({ ...run, reclaimed: run.reclaimed.slice(0, 1), totalBytes: 2048 }, at)).toBe('Reclaimed 2.0 KB from 1 worktree at 14:02');
  });

  it('words a status', () => {
    expect(statusWords('in_review')).toBe('in review');
    expect(statusWords('')).toBe('no task');
    expect(statusWords('done')).toBe('done');
  });
});

describe('checkGrace', () => {
  it('takes whole minutes from 0 to 1440', () => {
    expect(checkGrace(' 90 ')).toEqual({ minutes: 90 });
    expect(checkGrace('0')).toEqual({ minutes: 0 });
    expect(checkGrace('1440')).toEqual({ minutes: 1440 });
  });
  it('refuses the rest in words', () => {
    expect(checkGrace('1441')).toEqual({ error: 'The grace window is at most 1440 minutes (a day).' });
    for (const bad of ['', '-5', '1.5', 'an hour']) expect('error' in checkGrace(bad)).toBe(true);
  });
  it('says the window in words', () => {
    expect(graceWords(60)).toBe('a fire missed by up to 1 hour runs once at start-up; older ones are recorded as missed');
    expect(graceWords(120)).toContain('up to 2 hours');
    expect(graceWords(45)).toContain('up to 45 minutes');
    expect(graceWords(0)).toContain('never run late');
  });
});
