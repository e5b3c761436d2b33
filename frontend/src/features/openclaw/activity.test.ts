import { describe, expect, it } from 'vitest';
import { appendEntries, feedState, groupActivity, sessionName } from './activity';
import type { OpenClawActivity } from '../../lib/api/openclawTypes';

function call(ts: number, sessionKey: string, id: string, name: string, input: unknown, runId = 'r1'): OpenClawActivity {
  return { ts, sessionKey, agent: sessionKey.split(':')[1] ?? '', runId, event: { kind: 'tool-call', toolCallId: id, name, input } };
}
function result(ts: number, sessionKey: string, id: string, output: string, isError = false): OpenClawActivity {
  return { ts, sessionKey, agent: sessionKey.split(':')[1] ?? '', runId: '', event: { kind: 'tool-result', toolCallId: id, name: 'read', output, isError } };
}

describe('OpenClaw activity', () => {
  it('names a session by what follows its second colon', () => {
    expect(sessionName('agent:main:channel-x')).toBe('channel-x');
    expect(sessionName('agent:main:cron:nightly')).toBe('cron:nightly');
    expect(sessionName('odd')).toBe('odd');
  });

  it('groups by session, newest session first, and pairs results to calls by toolCallId', () => {
    const groups = groupActivity([
      call(1, 'agent:main:channel-x', 'call_1|fc_1', 'read', { path: 'a.txt' }),
      call(2, 'agent:ops:cron-nightly', 'c9', 'exec', { cmd: 'ls' }, 'r2'),
      call(3, 'agent:main:channel-x', 'call_2|fc_2', 'write', { path: 'b.txt' }),
      result(4, 'agent:main:channel-x', 'call_1|fc_1', 'hello'),
      result(5, 'agent:main:channel-x', 'call_2|fc_2', 'denied', true),
    ]);
    expect(groups.map((g) => [g.name, g.agent, g.lastTs])).toEqual([
      ['channel-x', 'main', 5],
      ['cron-nightly', 'ops', 2],
    ]);
    const [x] = groups;
    expect(x!.runIds).toEqual(['r1']);
    expect(x!.calls.map((c) => [c.id, c.name, c.output, c.isError])).toEqual([
      ['call_1|fc_1', 'read', 'hello', false],
      ['call_2|fc_2', 'write', 'denied', true],
    ]);
    expect(x!.calls[0]!.input).toBe('{\n  "path": "a.txt"\n}');
    expect(groups[1]!.calls[0]!.output).toBeNull();
  });

  it('keeps a result whose call it never saw, and does not pair across sessions', () => {
    const groups = groupActivity([call(1, 'agent:main:a', 'same', 'read', {}), result(2, 'agent:main:b', 'same', 'out')]);
    const a = groups.find((g) => g.name === 'a')!;
    const b = groups.find((g) => g.name === 'b')!;
    expect(a.calls[0]!.output).toBeNull();
    expect(b.calls).toEqual([{ id: 'same', name: 'read', input: '', output: 'out', isError: false, seq: 2 }]);
  });

  it('lets a repeated call update the first and skips other kinds', () => {
    const groups = groupActivity([
      call(1, 'agent:main:a', 'x', 'read', { p: 1 }),
      call(2, 'agent:main:a', 'x', 'read', { p: 2 }),
      { ts: 3, sessionKey: 'agent:main:a', agent: 'main', event: { kind: 'status', toolCallId: '' } },
      { ts: 4, sessionKey: 'agent:main:z', agent: 'main', event: { kind: 'status', toolCallId: '' } },
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.calls).toHaveLength(1);
    expect(groups[0]!.calls[0]!.input).toContain('"p": 2');
  });

  it('clips long output and bounds the entries kept', () => {
    const [g] = groupActivity([result(1, 'agent:main:a', 'x', 'y'.repeat(9000))]);
    expect(g!.calls[0]!.output).toMatch(/… \(1000 more characters not shown\)$/);
    const list = appendEntries([call(1, 's', 'a', 'n', {})], [call(2, 's', 'b', 'n', {}), call(3, 's', 'c', 'n', {})], 2);
    expect(list.map((e) => e.ts)).toEqual([2, 3]);
  });

  it('says "Not set up", never "Live", when no Gateway is configured', () => {
    const open = { live: true, loaded: true };
    expect(feedState(open, 'unconfigured')).toEqual({ text: 'Not set up', notSetUp: true });
    expect(feedState({ live: false, loaded: false }, 'unconfigured').text).toBe('Not set up');
    expect(feedState(open, 'connected')).toEqual({ text: 'Live', notSetUp: false });
    expect(feedState(open, 'unreadable').text).toBe('Live');
    expect(feedState(open, null).text).toBe('Checking the Gateway…');
    expect(feedState(open, 'error').text).toBe('Gateway not connected');
    expect(feedState(open, 'connecting').text).toBe('Connecting to the Gateway…');
    expect(feedState({ live: false, loaded: true }, 'connected').text).toBe('Reconnecting…');
    expect(feedState({ live: false, loaded: false }, 'connected').text).toBe('Connecting…');
  });
});
