// The Settings page's checks and words, kept out of the components so they
// are unit-tested: the port range's rules (the backend's, board.PortRange.
// Validate, said before the request) and the janitor report's summary line.

import type { JanitorRun, PortRange } from '../../lib/api/settingsDecode';
import { bytes, clockTime } from '../../lib/format';

/** A whole number typed in a field, or null. */
function whole(text: string): number | null {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : null;
}

/** The range typed in the three fields, or the first thing wrong with it, in words. */
export function checkPortRange(first: string, last: string, block: string): { range: PortRange } | { error: string } {
  const f = whole(first);
  const l = whole(last);
  const b = whole(block);
  if (f === null) return { error: 'The first port must be a whole number, like 41000.' };
  if (l === null) return { error: 'The last port must be a whole number, like 41999.' };
  if (b === null) return { error: 'The block size must be a whole number of ports, like 10.' };
  if (f < 1024) return { error: `The first port, ${f}, is reserved for the system: use 1024 or more.` };
  if (l > 65535) return { error: `The last port, ${l}, does not exist: ports end at 65535.` };
  if (f > l) return { error: `The first port (${f}) is after the last (${l}).` };
  if (b < 1 || b > 1000) return { error: `A block of ${b} ports: use 1 to 1000.` };
  if (l - f + 1 < b) return { error: `Ports ${f}–${l} are fewer than one block of ${b}.` };
  return { range: { first: f, last: l, block: b } };
}

/** How many worktrees can hold a lease at once. */
export function blocksIn(r: PortRange): number {
  return Math.floor((r.last - r.first + 1) / r.block);
}

/** "Reclaimed 1.2 GB from 3 worktrees at 14:02". */
export function janitorSummary(run: JanitorRun, now: number): string {
  const tasks = new Set(run.reclaimed.map((c) => c.taskId)).size;
  return `Reclaimed ${bytes(run.totalBytes)} from ${tasks} worktree${tasks === 1 ? '' : 's'} at ${clockTime(run.at, now)}`;
}

/** Words for a board status in the worktree table. */
export function statusWords(status: string): string {
  switch (status) {
    case '':
      return 'no task';
    case 'in_progress':
      return 'in progress';
    case 'in_review':
      return 'in review';
    default:
      return status.replace(/_/g, ' ');
  }
}

/** The grace window typed in minutes (0–1440), or what is wrong with it, in words. */
export function checkGrace(text: string): { minutes: number } | { error: string } {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return { error: 'Give the grace window as a whole number of minutes, 0 to 1440.' };
  const n = Number(t);
  if (n > 1440) return { error: 'The grace window is at most 1440 minutes (a day).' };
  return { minutes: n };
}

/** The grace window in words. */
export function graceWords(minutes: number): string {
  if (minutes === 0) return 'a fire missed while Clawboo was closed is recorded as missed, never run late';
  const span = minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return `a fire missed by up to ${span} runs once at start-up; older ones are recorded as missed`;
}
