// Folds a run's events into what the run pane shows. Pure logic, no DOM and
// no Svelte, so it is unit-tested directly. Everything it holds is bounded:
// text is capped per channel (TextBuffer), tool calls and errors keep only
// the newest N, and events themselves are never stored - a run of a million
// deltas costs the same memory as a run of a thousand.

import type { DoneReason, Phase, PlanStep, RunEvent, RunStatus, Run } from '../../lib/api/types';
import { isTerminal } from '../../lib/api/types';
import { TextBuffer, type TextView } from './textBuffer';
import { diskFullText } from '../../lib/api/errors';

export interface Limits {
  /** Characters of text kept per channel. */
  text: number;
  /** Tool calls kept (newest). */
  tools: number;
  /** Error events kept (newest). */
  errors: number;
  /** Characters of one tool input or output kept. */
  toolText: number;
}

export const DEFAULT_LIMITS: Limits = { text: 32_000, tools: 200, errors: 50, toolText: 8_000 };

export interface ToolCallView {
  id: string;
  name: string;
  /** Pretty JSON of the input; "" when no call was seen (a result without its call). */
  input: string;
  /** null while the call has no result. */
  output: string | null;
  isError: boolean;
  seq: number;
}

export interface ErrorView {
  seq: number;
  code: string;
  message: string;
  fatal: boolean;
}

export interface CostView {
  /** Sum of reported USD, or null when no cost event carried one. */
  costUsd: number | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  model: string | null;
  local: boolean;
  estimated: boolean;
  /** Whether any cost event arrived. */
  seen: boolean;
}

export interface RunView {
  lastSeq: number;
  phase: Phase | null;
  model: string | null;
  detail: string | null;
  /** True while the newest event is streamed answer text (no status, tool or error since). */
  writing: boolean;
  assistant: TextView;
  reasoning: TextView;
  tools: readonly ToolCallView[];
  /** Tool calls dropped from the front to respect the bound. */
  hiddenTools: number;
  errors: readonly ErrorView[];
  hiddenErrors: number;
  cost: CostView;
  /** The agent's plan as it stands (each plan event replaces the last); empty when it has none. */
  plan: readonly PlanStep[];
  done: { reason: DoneReason; summary: string } | null;
}

function clip(s: string, cap: number): string {
  return s.length <= cap ? s : `${s.slice(0, cap)}\n… (${s.length - cap} more characters not shown)`;
}

function inputText(input: unknown, cap: number): string {
  if (input === undefined) return '{}';
  try {
    return clip(JSON.stringify(input, null, 2) ?? 'null', cap);
  } catch {
    return String(input);
  }
}

const EMPTY_COST: CostView = {
  costUsd: null,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  model: null,
  local: false,
  estimated: false,
  seen: false,
};

export class RunAccumulator {
  private readonly limits: Limits;
  private readonly assistant: TextBuffer;
  private readonly reasoning: TextBuffer;
  private tools: ToolCallView[] = [];
  private hiddenTools = 0;
  private errors: ErrorView[] = [];
  private hiddenErrors = 0;
  private cost: CostView = EMPTY_COST;
  private plan: readonly PlanStep[] = [];
  private phase: Phase | null = null;
  private model: string | null = null;
  private detail: string | null = null;
  private writing = false;
  private done: RunView['done'] = null;
  private seq = 0;
  private last: RunView | null = null;

  constructor(
    readonly runId: string,
    limits: Partial<Limits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.assistant = new TextBuffer(this.limits.text);
    this.reasoning = new TextBuffer(this.limits.text);
  }

  get lastSeq(): number {
    return this.seq;
  }

  get isDone(): boolean {
    return this.done !== null;
  }

  /**
   * Applies one event. Returns false, changing nothing, for an event already
   * seen (seq not above the last) or of another run: a resumed stream may
   * overlap, and replays must never duplicate text.
   */
  apply(ev: RunEvent): boolean {
    if (ev.runId !== this.runId || ev.seq <= this.seq) return false;
    this.seq = ev.seq;
    this.last = null;
    // A plan, like a cost, is said beside the text: it neither ends nor starts "writing".
    if (ev.kind !== 'cost' && ev.kind !== 'plan') this.writing = ev.kind === 'text-delta' && ev.channel !== 'reasoning' && !!ev.text;
    // A tool call, its result or a status change ends a block of text: what
    // either channel says next is a new paragraph, never glued to the last word.
    if (ev.kind === 'tool-call' || ev.kind === 'tool-result' || ev.kind === 'status') {
      this.assistant.paragraph();
      this.reasoning.paragraph();
    }
    switch (ev.kind) {
      case 'status':
        this.phase = ev.phase;
        if (ev.model) this.model = ev.model;
        this.detail = ev.detail ?? null;
        break;
      case 'text-delta':
        (ev.channel === 'reasoning' ? this.reasoning : this.assistant).append(ev.text ?? '');
        break;
      case 'tool-call':
        this.toolCall(ev.toolCallId, ev.name, inputText(ev.input, this.limits.toolText), ev.seq);
        break;
      case 'tool-result':
        this.toolResult(ev.toolCallId, ev.name ?? '', clip(ev.output ?? '', this.limits.toolText), !!ev.isError, ev.seq);
        break;
      case 'cost': {
        const c = { ...this.cost, seen: true };
        if (ev.costUsd !== undefined) c.costUsd = (c.costUsd ?? 0) + ev.costUsd;
        if (ev.usage) {
          c.inputTokens += ev.usage.inputTokens;
          c.outputTokens += ev.usage.outputTokens;
          c.cachedInputTokens += ev.usage.cachedInputTokens ?? 0;
        }
        if (ev.model) c.model = ev.model;
        c.local ||= !!ev.local;
        c.estimated ||= !!ev.estimated;
        this.cost = c;
        break;
      }
      case 'error':
        this.errors = [...this.errors, { seq: ev.seq, code: ev.code ?? '', message: ev.message, fatal: !!ev.fatal }];
        if (this.errors.length > this.limits.errors) {
          this.hiddenErrors += this.errors.length - this.limits.errors;
          this.errors = this.errors.slice(-this.limits.errors);
        }
        break;
      case 'plan':
        // Bounded like the rest: an agent's plan is short, a runaway one is cut.
        this.plan = ev.plan.slice(0, this.limits.tools);
        break;
      case 'done':
        this.done = { reason: ev.reason, summary: ev.summary ?? '' };
        break;
    }
    return true;
  }

  private toolCall(id: string, name: string, input: string, seq: number): void {
    const i = this.findTool(id);
    if (i >= 0) {
      const t = this.tools[i]!;
      this.replaceTool(i, { ...t, name, input });
      return;
    }
    this.tools = [...this.tools, { id, name, input, output: null, isError: false, seq }];
    if (this.tools.length > this.limits.tools) {
      this.hiddenTools += this.tools.length - this.limits.tools;
      this.tools = this.tools.slice(-this.limits.tools);
    }
  }

  private toolResult(id: string, name: string, output: string, isError: boolean, seq: number): void {
    const i = this.findTool(id);
    if (i >= 0) {
      const t = this.tools[i]!;
      this.replaceTool(i, { ...t, name: t.name || name, output, isError });
    } else if (this.hiddenTools === 0) {
      // A result whose call we never saw: show it rather than lose it.
      this.tools = [...this.tools, { id, name, input: '', output, isError, seq }];
    }
    // Otherwise its call was dropped by the bound; so is the result.
  }

  private findTool(id: string): number {
    // Results usually follow their calls closely: search from the end.
    for (let i = this.tools.length - 1; i >= 0; i--) if (this.tools[i]!.id === id) return i;
    return -1;
  }

  private replaceTool(i: number, t: ToolCallView): void {
    const next = this.tools.slice();
    next[i] = t;
    this.tools = next;
  }

  /**
   * The view now. Parts that did not change keep their identity, and calling
   * it twice with no event between returns the same object.
   */
  snapshot(): RunView {
    if (this.last) return this.last;
    this.last = {
      lastSeq: this.seq,
      phase: this.phase,
      model: this.model,
      detail: this.detail,
      writing: this.writing,
      assistant: this.assistant.view(),
      reasoning: this.reasoning.view(),
      tools: this.tools,
      hiddenTools: this.hiddenTools,
      errors: this.errors,
      hiddenErrors: this.hiddenErrors,
      cost: this.cost,
      plan: this.plan,
      done: this.done,
    };
    return this.last;
  }
}

/** The run status a done event implies (the ledger may refine it, e.g. timed_out). */
export function statusFromDone(reason: DoneReason): RunStatus {
  switch (reason) {
    case 'success':
    case 'max_turns':
      return 'succeeded';
    case 'aborted':
      return 'aborted';
    default:
      return 'failed';
  }
}

/**
 * The status the run pane shows. A terminal status is shown only once the
 * stream has delivered the done event (or has ended for good), so a final
 * status always comes with the complete output: the lifecycle stream can
 * report "succeeded" while this pane is still replaying a flood of deltas.
 * After done, a terminal ledger record refines it (timed_out, a host
 * failure); the ledger trails the stream, so a live record never undoes done.
 */
export function effectiveStatus(
  record: Run | null,
  view: Pick<RunView, 'done' | 'lastSeq'>,
  streamEnded: boolean,
): RunStatus {
  const recordDone = record !== null && isTerminal(record.status);
  if (view.done) return recordDone ? record.status : statusFromDone(view.done.reason);
  if (recordDone) return streamEnded ? record.status : 'running';
  // Events prove the run started even if the record we hold predates that.
  if (record && !(record.status === 'starting' && view.lastSeq > 0)) return record.status;
  return view.lastSeq > 0 ? 'running' : 'starting';
}

/** Whether the run can still be aborted: neither the ledger nor the stream says it ended. */
export function canAbort(record: Run | null, view: Pick<RunView, 'done'>): boolean {
  return view.done === null && !(record !== null && isTerminal(record.status));
}

/** The error text to show for a run, or "" when it has none. */
export function runErrorText(record: Run | null, view: Pick<RunView, 'done' | 'errors'>): string {
  if (record?.error) return diskFullText(record.error);
  if (view.done?.reason === 'error') return diskFullText(view.done.summary || 'the run failed');
  const fatal = [...view.errors].reverse().find((e) => e.fatal);
  return fatal?.message ?? '';
}

/** What the run is doing, for the pane's "phase" line: "writing" while answer text streams. */
export function phaseLabel(view: Pick<RunView, 'phase' | 'detail' | 'writing'>): string {
  if (view.writing) return 'writing';
  if (!view.phase) return '';
  return view.detail ? `${view.phase}: ${view.detail}` : view.phase;
}
