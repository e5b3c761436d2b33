import { describe, expect, it } from 'vitest';
import type { Run } from '../../lib/api/types';
import { budgetStopText, errorWords, outcomeText, repeatsRunError } from './runOutcome';
import { phaseLabel, RunAccumulator } from './runView';

const run = (over: Partial<Run>): Run =>
  ({ id: 'r', status: 'aborted', error: '', doneReason: 'success', summary: '', ...over }) as Run;

describe('runOutcome', () => {
  it('says a budget stop in words, with the limit when known', () => {
    const r = run({ error: 'budget_paused:agent', budgetStop: { scope: 'agent', scopeId: 'a', limitUsd: 0.02 } });
    expect(budgetStopText(r)).toBe("Stopped: the agent's $0.02 budget is used");
    expect(outcomeText('success', r)).toBe("Stopped: the agent's $0.02 budget is used");
    expect(budgetStopText(run({ error: 'budget_paused:team' }))).toBe("Stopped: the team's budget is used");
    expect(budgetStopText(run({ error: 'boom' }))).toBeNull();
  });

  it('calls a stopped run Stopped, the one word the board, the runs and the room use', () => {
    expect(outcomeText('aborted', run({ error: 'Stopped by you' }))).toBe('Stopped');
  });

  it('turns a JSON error body into its message and keeps the raw text', () => {
    const raw = 'runtime ended without a result: POST "https://x/v1": 400 Bad Request {"error":{"message":"no such model"}}';
    const w = errorWords(raw);
    expect(w.text).toBe('runtime ended without a result: 400 Bad Request: no such model');
    expect(w.raw).toBe(raw);
    expect(errorWords('boom')).toEqual({ text: 'boom', raw: '' });
    const native = 'model provider error: openai: overloaded: OpenAI API error: 500 Internal Server Error: nothing scripted (x: y)';
    expect(errorWords(native)).toEqual({ text: 'The model provider (openai) failed with 500: nothing scripted (x: y)', raw: native });
    expect(repeatsRunError({ message: 'POST "https://x/v1": 400 Bad Request {"error":{"message":"no such model"}}', fatal: true }, w)).toBe(true);
    expect(repeatsRunError({ message: 'other', fatal: true }, w)).toBe(false);
  });

  it('labels the phase "writing" while answer text streams', () => {
    const acc = new RunAccumulator('r');
    acc.apply({ runId: 'r', seq: 1, ts: 1, kind: 'status', phase: 'thinking', detail: 'turn 1' } as never);
    expect(phaseLabel(acc.snapshot())).toBe('thinking: turn 1');
    acc.apply({ runId: 'r', seq: 2, ts: 2, kind: 'text-delta', channel: 'assistant', text: 'hi' } as never);
    expect(phaseLabel(acc.snapshot())).toBe('writing');
    acc.apply({ runId: 'r', seq: 3, ts: 3, kind: 'tool-call', toolCallId: 't', name: 'x', input: {} } as never);
    expect(phaseLabel(acc.snapshot())).toBe('thinking: turn 1');
  });
});
