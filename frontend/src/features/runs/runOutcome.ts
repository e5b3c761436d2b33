// How a run ended, said once and in words: the Result section's sentence,
// the error a person reads (with the raw text kept for a disclosure), and
// which error events the pane need not repeat. Pure logic, unit-tested.

import type { Run } from '../../lib/api/types';
import { diskFullText } from '../../lib/api/errors';
import { usd } from '../../lib/format';
import type { RunView } from './runView';

/** The error of a run a cap budget stopped starts with this (then the scope). */
export const BUDGET_PAUSED = 'budget_paused:';

const SCOPE_WORDS: Record<string, string> = { agent: "the agent's", team: "the team's", mission: "the mission's" };

/** "Stopped: the agent's $0.02 budget is used", or null for a run no budget stopped. */
export function budgetStopText(record: Pick<Run, 'error' | 'budgetStop'> | null): string | null {
  if (!record?.error.startsWith(BUDGET_PAUSED)) return null;
  const scope = record.budgetStop?.scope ?? record.error.slice(BUDGET_PAUSED.length);
  const whose = SCOPE_WORDS[scope] ?? 'a';
  const limit = record.budgetStop?.limitUsd;
  return `Stopped: ${whose} ${typeof limit === 'number' ? `${usd(limit)} ` : ''}budget is used`;
}

/** An error as a person reads it, and the raw text behind it ("" when the words are the raw text). */
export interface ErrorWords {
  text: string;
  raw: string;
}

/** The message of a JSON error body ({"error":{"message"}}, {"error":"…"}, {"message"}), or null. */
function jsonMessage(s: string): string | null {
  try {
    const v: unknown = JSON.parse(s);
    if (typeof v !== 'object' || v === null) return null;
    const o = v as Record<string, unknown>;
    const e = o.error;
    if (typeof e === 'string' && e) return e;
    if (typeof e === 'object' && e !== null && typeof (e as Record<string, unknown>).message === 'string') {
      return (e as Record<string, string>).message || null;
    }
    return typeof o.message === 'string' && o.message ? o.message : null;
  } catch {
    return null;
  }
}

/** The native runtime's provider failure: "model provider error: <provider>: <kind>: [… API error: ][<status> <text>: ]<message>". */
const PROVIDER_ERROR = /^model provider error: ([\w.-]+): [\w -]+: (?:.*?API error: )?(?:(\d{3})[A-Za-z ]*: )?([\s\S]*)$/;

/**
 * Words for a raw error: a JSON body inside it becomes its message, and the
 * request line before it (METHOD "url":) is dropped. The raw text is kept
 * when the words differ from it.
 */
export function errorWords(raw: string): ErrorWords {
  const provider = PROVIDER_ERROR.exec(raw.trim());
  if (provider) {
    const [, name, status, rest] = provider;
    const inner = errorWords(rest!).text;
    return { text: `The model provider (${name}) failed${status ? ` with ${status}` : ''}: ${inner}`, raw: raw.trim() };
  }
  const msg = diskFullText(raw.trim());
  const at = msg.indexOf('{');
  if (at >= 0) {
    const inner = jsonMessage(msg.slice(at));
    if (inner) {
      const lead = msg
        .slice(0, at)
        .replace(/\b(GET|POST|PUT|PATCH|DELETE)\s+"?[a-z]+:\/\/[^\s"]*"?:?\s*/gi, '')
        .replace(/[\s:;,-]+$/, '');
      const text = lead ? `${lead}: ${inner}` : inner;
      return { text, raw: raw.trim() };
    }
  }
  return { text: msg, raw: msg === raw.trim() ? '' : raw.trim() };
}

/** The run's error in words, or null when it has none (a budget stop is said by budgetStopText). */
export function runError(record: Run | null, view: Pick<RunView, 'done' | 'errors'>): ErrorWords | null {
  if (budgetStopText(record)) return null;
  if (record?.error) return errorWords(record.error);
  if (view.done?.reason === 'error') return errorWords(view.done.summary || 'the run failed');
  const fatal = [...view.errors].reverse().find((e) => e.fatal);
  return fatal ? errorWords(fatal.message) : null;
}

/** Whether an error event only repeats the run's error (shown once, in the alert). */
export function repeatsRunError(e: { message: string; fatal: boolean }, err: ErrorWords | null): boolean {
  if (!err || !e.fatal) return false;
  const m = e.message.trim();
  return m !== '' && ((err.raw || err.text).includes(m) || err.text.includes(errorWords(m).text));
}

/** The Result section's sentence for an ended run. */
export function outcomeText(reason: string | null, record: Run | null): string {
  const stop = budgetStopText(record);
  if (stop) return stop;
  if (record?.status === 'timed_out') return 'Stopped: no events for too long';
  switch (reason) {
    case 'success':
      return record?.status === 'failed' ? 'Failed' : 'Finished';
    case 'max_turns':
      return 'Finished: it reached its turn limit';
    case 'aborted':
      // One word for a person's stop everywhere (the room's Stop, the drawer's, the Runs page's).
      return 'Stopped';
    case 'error':
      return 'Failed';
    default:
      return reason ?? '';
  }
}
