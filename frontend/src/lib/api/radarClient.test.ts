import { describe, expect, it } from 'vitest';
import { jsonRequest } from './mergeClient';
import { decodeRadar, overlapsOf, RadarApi, spanWords } from './radarClient';

const answer = {
  pairs: [
    {
      a: 'T1',
      b: 'T2',
      repoPath: '/r',
      sameBase: true,
      files: [
        { path: 'a.txt', hunks: [{ a: [10, 11], b: [11, 11] }] },
        { path: 'b.txt', hunks: [{ a: [0, 0], b: [0, 0], aAdd: true, bAdd: true }] },
      ],
    },
    { a: 'T3', b: 'T1', repoPath: '/r', sameBase: true, files: [{ path: 'a.txt', hunks: [] }] },
  ],
  order: ['T3', 'T1', 'T2'],
  titles: { T1: 'one', T2: 'two', T3: 'three' },
  tasks: 3,
  skipped: [],
  at: 5,
};

describe('RadarApi', () => {
  it('asks for one repository and decodes the pairs', async () => {
    const seen: string[] = [];
    const api = new RadarApi(
      jsonRequest(async (url) => {
        seen.push(String(url));
        return new Response(JSON.stringify(answer), { status: 200 });
      }),
    );
    const r = await api.get('/my repo');
    expect(seen).toEqual(['/api/board/radar?repoPath=%2Fmy%20repo']);
    expect(r.pairs).toHaveLength(2);
    expect(r.pairs[0]?.files[1]?.hunks[0]).toEqual({ a: [0, 0], b: [0, 0], aAdd: true, bAdd: true });
    expect(r.order).toEqual(['T3', 'T1', 'T2']);
    expect(r.titles.T2).toBe('two');
  });

  it('refuses a shape it does not know', () => {
    expect(() => decodeRadar({ pairs: [{ a: 'x' }], order: [] })).toThrow(/radar pair/);
    expect(() => decodeRadar([])).toThrow(/radar is not/);
  });
});

describe('overlapsOf', () => {
  it('sees each pair from the task, with its own hunks first', () => {
    const r = decodeRadar(answer);
    const mine = overlapsOf(r, 'T1');
    expect(mine.map((o) => o.other)).toEqual(['T2', 'T3']);
    expect(overlapsOf(r, 'T2')[0]?.files[0]?.hunks[0]).toEqual({ mine: [11, 11], theirs: [10, 11], mineAdd: false, theirsAdd: false });
    expect(overlapsOf(r, 'T4')).toEqual([]);
    expect(overlapsOf(null, 'T1')).toEqual([]);
  });

  it('says where a hunk is', () => {
    expect(spanWords([3, 5], false)).toBe('lines 3–5');
    expect(spanWords([3, 3], false)).toBe('line 3');
    expect(spanWords([3, 3], true)).toBe('after line 3');
    expect(spanWords([0, 0], true)).toBe('at the top');
  });
});
