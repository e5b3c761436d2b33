import { describe, expect, it } from 'vitest';
import type { Run, RunEvent } from '../../lib/api/types';
import { canAbort, effectiveStatus, RunAccumulator, runErrorText, statusFromDone } from './runView';
import { TextBuffer, tail } from './textBuffer';
import { makeRun } from '../../lib/testing/fixtures';

type Body = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'runId' | 'seq' | 'ts'> : never) : never;

/** Builds events with consecutive seqs for run "r". */
function events(...bodies: Body[]): RunEvent[] {
  return bodies.map((b, i) => ({ runId: 'r', seq: i + 1, ts: 1000 + i, ...b }) as RunEvent);
}

function fold(evs: RunEvent[], acc = new RunAccumulator('r')) {
  for (const e of evs) acc.apply(e);
  return acc.snapshot();
}

const run = (over: Partial<Run> = {}): Run => makeRun({ startedAt: 1, ...over });

describe('RunAccumulator', () => {
  it('accumulates assistant and reasoning text separately', () => {
    const v = fold(
      events(
        { kind: 'status', phase: 'init', model: 'm1' },
        { kind: 'text-delta', text: 'Hel', channel: 'assistant' },
        { kind: 'text-delta', text: 'thinking…', channel: 'reasoning' },
        { kind: 'text-delta', text: 'lo' }, // no channel means assistant
        { kind: 'text-delta' }, // empty text is omitted on the wire
      ),
    );
    expect(v.assistant).toEqual({ text: 'Hello', hidden: 0 });
    expect(v.reasoning).toEqual({ text: 'thinking…', hidden: 0 });
    expect(v.phase).toBe('init');
    expect(v.model).toBe('m1');
    expect(v.lastSeq).toBe(5);
  });

  it('starts the text after a tool call or a status on a new paragraph, never glued ("root.Added")', () => {
    const v = fold(
      events(
        { kind: 'text-delta', text: 'I looked at the root.' },
        { kind: 'tool-call', toolCallId: 'a', name: 'write', input: {} },
        { kind: 'tool-result', toolCallId: 'a', name: 'write', output: 'ok' },
        { kind: 'text-delta', text: 'Added ' },
        { kind: 'text-delta', text: 'the file.\n' },
        { kind: 'status', phase: 'running' },
        { kind: 'text-delta', text: 'Done.' },
        { kind: 'tool-call', toolCallId: 'b', name: 'ls', input: {} },
        { kind: 'text-delta', text: '\nOn its own line already.' },
        { kind: 'text-delta', text: 'thinking', channel: 'reasoning' },
      ),
    );
    expect(v.assistant.text).toBe('I looked at the root.\n\nAdded the file.\n\nDone.\nOn its own line already.');
    expect(v.reasoning.text).toBe('thinking');
  });

  it('matches tool results to their calls and leaves unanswered calls pending', () => {
    const v = fold(
      events(
        { kind: 'tool-call', toolCallId: 'a', name: 'read', input: { path: 'x' } },
        { kind: 'tool-call', toolCallId: 'b', name: 'deploy', input: {} },
        { kind: 'tool-result', toolCallId: 'a', name: 'read', output: 'contents' },
        { kind: 'tool-call', toolCallId: 'c', name: 'rm' },
        { kind: 'tool-result', toolCallId: 'c', name: 'rm', output: 'denied', isError: true },
      ),
    );
    expect(v.tools.map((t) => [t.id, t.name, t.output, t.isError])).toEqual([
      ['a', 'read', 'contents', false],
      ['b', 'deploy', null, false],
      ['c', 'rm', 'denied', true],
    ]);
    expect(v.tools[0]?.input).toBe('{\n  "path": "x"\n}');
  });

  it('shows a result whose call it never saw', () => {
    const v = fold(events({ kind: 'tool-result', toolCallId: 'z', name: 'ls', output: 'a b' }));
    expect(v.tools).toEqual([{ id: 'z', name: 'ls', input: '', output: 'a b', isError: false, seq: 1 }]);
  });

  it('records status, errors, cost and done', () => {
    const v = fold(
      events(
        { kind: 'status', phase: 'thinking', detail: 'planning' },
        { kind: 'cost', costUsd: 0.25, usage: { inputTokens: 10, outputTokens: 5 }, model: 'm' },
        { kind: 'cost', costUsd: 0.5, usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 7 }, estimated: true },
        { kind: 'cost', usage: { inputTokens: 1, outputTokens: 1 } },
        { kind: 'error', code: 'mock', message: 'boom', fatal: true },
        { kind: 'done', reason: 'error', summary: 'runtime ended without a result: boom' },
      ),
    );
    expect(v.detail).toBe('planning');
    expect(v.cost).toEqual({
      costUsd: 0.75,
      inputTokens: 12,
      outputTokens: 8,
      cachedInputTokens: 7,
      model: 'm',
      local: false,
      estimated: true,
      seen: true,
    });
    expect(v.errors).toEqual([{ seq: 5, code: 'mock', message: 'boom', fatal: true }]);
    expect(v.done).toEqual({ reason: 'error', summary: 'runtime ended without a result: boom' });
  });

  it('keeps the latest plan whole, beside the text, and a cleared plan as none', () => {
    const acc = new RunAccumulator('r');
    const v = fold(
      events(
        { kind: 'text-delta', text: 'Let me plan.' },
        { kind: 'plan', plan: [{ content: 'read', status: 'in_progress' }, { content: 'write', status: 'pending' }] },
        { kind: 'plan', plan: [{ content: 'read', status: 'completed' }, { content: 'write', status: 'in_progress', priority: 'high' }] },
      ),
      acc,
    );
    expect(v.plan).toEqual([
      { content: 'read', status: 'completed' },
      { content: 'write', status: 'in_progress', priority: 'high' },
    ]);
    expect(v.writing).toBe(true);
    expect(v.assistant.text).toBe('Let me plan.');
    acc.apply({ runId: 'r', seq: 4, ts: 1, kind: 'plan', plan: [] });
    expect(acc.snapshot().plan).toEqual([]);
  });

  it('ignores a kind it does not know without losing the rest', () => {
    const acc = new RunAccumulator('r');
    acc.apply({ runId: 'r', seq: 1, ts: 1, kind: 'text-delta', text: 'a' });
    expect(acc.apply({ runId: 'r', seq: 2, ts: 1, kind: 'from-the-future' } as unknown as RunEvent)).toBe(true);
    acc.apply({ runId: 'r', seq: 3, ts: 1, kind: 'text-delta', text: 'b' });
    expect(acc.snapshot()).toMatchObject({ lastSeq: 3, plan: [], assistant: { text: 'ab' } });
  });

  it('keeps cost unknown when usage arrives without a price', () => {
    const v = fold(events({ kind: 'cost', usage: { inputTokens: 3, outputTokens: 4 } }));
    expect(v.cost.costUsd).toBeNull();
    expect(v.cost.seen).toBe(true);
  });

  it('ignores replayed or out-of-date events, so a resumed stream never duplicates text', () => {
    const evs = events(
      { kind: 'text-delta', text: 'first ' },
      { kind: 'text-delta', text: 'second ' },
      { kind: 'text-delta', text: 'third' },
    );
    const acc = new RunAccumulator('r');
    expect(acc.apply(evs[0]!)).toBe(true);
    expect(acc.apply(evs[1]!)).toBe(true);
    // Reconnect overlap: the server replays 1..3.
    expect(evs.map((e) => acc.apply(e))).toEqual([false, false, true]);
    expect(acc.snapshot().assistant.text).toBe('first second third');
    // Another run's event is not ours.
    expect(acc.apply({ ...evs[2]!, runId: 'other', seq: 99 })).toBe(false);
  });

  it('caps text and counts what it hides, for huge floods', () => {
    const acc = new RunAccumulator('r', { text: 1000 });
    const n = 100_000;
    const started = performance.now();
    for (let i = 1; i <= n; i++) acc.apply({ runId: 'r', seq: i, ts: i, kind: 'text-delta', text: 'x' });
    const v = acc.snapshot();
    expect(v.assistant.text).toBe('x'.repeat(1000));
    expect(v.assistant.hidden).toBe(n - 1000);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('bounds tool calls and errors, counting the dropped', () => {
    const acc = new RunAccumulator('r', { tools: 3, errors: 2 });
    let seq = 0;
    const e = (b: Body) => acc.apply({ runId: 'r', seq: ++seq, ts: 0, ...b } as RunEvent);
    for (let i = 0; i < 5; i++) e({ kind: 'tool-call', toolCallId: `t${i}`, name: 'noop' });
    for (let i = 0; i < 5; i++) e({ kind: 'error', message: `e${i}` });
    e({ kind: 'tool-result', toolCallId: 't0', output: 'late' }); // its call was dropped
    const v = acc.snapshot();
    expect(v.tools.map((t) => t.id)).toEqual(['t2', 't3', 't4']);
    expect(v.hiddenTools).toBe(2);
    expect(v.errors.map((x) => x.message)).toEqual(['e3', 'e4']);
    expect(v.hiddenErrors).toBe(3);
  });

  it('clips a huge tool output', () => {
    const acc = new RunAccumulator('r', { toolText: 10 });
    fold(
      events({ kind: 'tool-call', toolCallId: 'a', name: 'cat' }, { kind: 'tool-result', toolCallId: 'a', output: 'y'.repeat(50) }),
      acc,
    );
    expect(acc.snapshot().tools[0]?.output).toBe('yyyyyyyyyy\n… (40 more characters not shown)');
  });

  it('returns the same snapshot until something changes, and keeps unchanged parts', () => {
    const acc = new RunAccumulator('r');
    const [a, b] = events({ kind: 'tool-call', toolCallId: 'a', name: 'x' }, { kind: 'text-delta', text: 'hi' });
    acc.apply(a!);
    const s1 = acc.snapshot();
    expect(acc.snapshot()).toBe(s1);
    acc.apply(b!);
    const s2 = acc.snapshot();
    expect(s2).not.toBe(s1);
    expect(s2.tools).toBe(s1.tools);
    expect(s2.reasoning).toBe(s1.reasoning);
    expect(s2.assistant.text).toBe('hi');
  });
});

describe('status and error text', () => {
  it('maps done reasons as the host does', () => {
    expect(statusFromDone('success')).toBe('succeeded');
    expect(statusFromDone('max_turns')).toBe('succeeded');
    expect(statusFromDone('aborted')).toBe('aborted');
    expect(statusFromDone('error')).toBe('failed');
  });

  it('shows a final status only with the done event, refined by a terminal record', () => {
    const done = { reason: 'aborted' as const, summary: '' };
    expect(effectiveStatus(run({ status: 'timed_out' }), { done, lastSeq: 3 }, false)).toBe('timed_out');
    // The ledger trails the stream: a live record does not undo a done event.
    expect(effectiveStatus(run({ status: 'running' }), { done, lastSeq: 3 }, false)).toBe('aborted');
    expect(effectiveStatus(null, { done, lastSeq: 3 }, true)).toBe('aborted');
  });

  it('keeps showing progress while the stream catches up to a finished record', () => {
    const finished = run({ status: 'succeeded', lastSeq: 20_001 });
    expect(effectiveStatus(finished, { done: null, lastSeq: 5_000 }, false)).toBe('running');
    // A stream that ended for good (say the log has no done) shows the record.
    expect(effectiveStatus(finished, { done: null, lastSeq: 5_000 }, true)).toBe('succeeded');
  });

  it('falls back to the live record, then to what the events imply', () => {
    expect(effectiveStatus(run({ status: 'running' }), { done: null, lastSeq: 0 }, false)).toBe('running');
    expect(effectiveStatus(run({ status: 'starting' }), { done: null, lastSeq: 2 }, false)).toBe('running');
    expect(effectiveStatus(run({ status: 'starting' }), { done: null, lastSeq: 0 }, false)).toBe('starting');
    expect(effectiveStatus(null, { done: null, lastSeq: 0 }, false)).toBe('starting');
    expect(effectiveStatus(null, { done: null, lastSeq: 1 }, false)).toBe('running');
  });

  it('offers abort only while neither the ledger nor the stream says the run ended', () => {
    expect(canAbort(run({ status: 'running' }), { done: null })).toBe(true);
    expect(canAbort(null, { done: null })).toBe(true);
    expect(canAbort(run({ status: 'running' }), { done: { reason: 'success', summary: '' } })).toBe(false);
    expect(canAbort(run({ status: 'failed' }), { done: null })).toBe(false);
  });

  it('finds the error to show', () => {
    const errors = [{ seq: 1, code: 'mock', message: 'boom', fatal: true }];
    expect(runErrorText(run({ error: 'host says no' }), { done: null, errors })).toBe('host says no');
    expect(runErrorText(null, { done: { reason: 'error', summary: 'ended badly' }, errors })).toBe('ended badly');
    expect(runErrorText(null, { done: null, errors })).toBe('boom');
    expect(runErrorText(null, { done: { reason: 'success', summary: 'ok' }, errors: [] })).toBe('');
  });

  it('says "Disk full" for a run the full disk stopped or left unsaved', () => {
    const notSaved = "the disk is full: the run's result could not be saved; free some disk space";
    expect(runErrorText(run({ status: 'failed', error: notSaved }), { done: null, errors: [] })).toBe(
      "Disk full: the run's result could not be saved; free some disk space",
    );
    const events = 'the disk is full: run events could not be saved';
    expect(runErrorText(null, { done: { reason: 'error', summary: events }, errors: [] })).toBe(
      'Disk full: run events could not be saved',
    );
  });
});

describe('TextBuffer', () => {
  it('puts a new block after a blank line, even once the kept text was cut', () => {
    const b = new TextBuffer(4);
    b.paragraph(); // nothing yet: no break before the first text
    b.append('abcdef');
    b.paragraph();
    b.append('gh');
    expect(b.view()).toEqual({ text: '\n\ngh', hidden: 6 });
    b.append('\n\n');
    b.paragraph();
    b.append('ij');
    expect(b.view().text).toBe('\n\nij');
  });

  it('keeps the newest text up to the cap and counts the rest', () => {
    const b = new TextBuffer(5);
    for (const s of ['ab', 'cd', 'ef', 'gh']) b.append(s);
    expect(b.view()).toEqual({ text: 'defgh', hidden: 3 });
    expect(b.length).toBe(8);
    b.append('0123456789');
    expect(b.view()).toEqual({ text: '56789', hidden: 13 });
  });

  it('never starts the kept text inside a surrogate pair', () => {
    expect(tail('a🦀b', 2)).toBe('b');
    expect(tail('a🦀b', 3)).toBe('🦀b');
    const b = new TextBuffer(3);
    b.append('x🦀🦀');
    expect(b.view().text).toBe('🦀');
    expect(b.view().hidden).toBe(3);
  });

  it('returns the same view object until text is appended', () => {
    const b = new TextBuffer(10);
    b.append('a');
    const v = b.view();
    expect(b.view()).toBe(v);
    b.append('');
    expect(b.view()).toBe(v);
    b.append('b');
    expect(b.view()).not.toBe(v);
  });
});
