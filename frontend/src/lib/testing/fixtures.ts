// Test fixtures shared by the unit tests: one place that knows every field a
// Run carries, so a new field is added once.
import type { Run } from '../api/types';

export function makeRun(over: Partial<Run> = {}): Run {
  return {
    id: 'r',
    runtimeId: 'clawboo-mock',
    agentId: null,
    title: 't',
    status: 'running',
    doneReason: null,
    summary: '',
    error: '',
    costUsd: null,
    costKind: null,
    inputTokens: 0,
    outputTokens: 0,
    lastSeq: 0,
    createdAt: 1,
    startedAt: null,
    endedAt: null,
    ...over,
  };
}
