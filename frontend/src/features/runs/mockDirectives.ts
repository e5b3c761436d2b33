// The mock runtime's directives, for the cheat-sheet shown when clawboo-mock
// is selected (see backend/adapters/mock). One per line, optionally indented.

export interface Directive {
  example: string;
  effect: string;
}

export const MOCK_DIRECTIVES: readonly Directive[] = [
  { example: '!ok hello', effect: 'emit the text (also the summary)' },
  { example: '!silent 1500', effect: 'pause n ms (default 1000)' },
  { example: '!toolcall deploy', effect: 'a tool call with no result' },
  { example: '!loop 3', effect: 'n call/result pairs (max 50)' },
  { example: '!error boom', effect: 'fatal error; no done event' },
  { example: '!abort', effect: 'wait until aborted' },
  { example: '!slowstart 2000', effect: 'delay the start by n ms' },
  { example: '!flood 20000', effect: 'n one-character deltas' },
  { example: '!crash', effect: 'the runtime panics' },
  { example: '!write notes.txt hello', effect: 'write a file in the task worktree' },
  { example: '!cost 0.25', effect: 'report a cost in USD (reported)' },
  { example: '!usage 1000 200', effect: 'report tokens in/out (estimated)' },
  { example: '!localcost 1000 200', effect: 'tokens of a free local model' },
  { example: '!quota five_hour 97 allowed_warning 3600', effect: 'report a usage window (percent, status, resets in s)' },
];

/** Appends a directive as its own line. */
export function appendLine(text: string, line: string): string {
  if (text === '') return line;
  return text.endsWith('\n') ? text + line : `${text}\n${line}`;
}
