// Words and marks for an agent's plan (ACP's plan update), read the same
// wherever a run is shown. The mark is for the eye; the words are what a
// screen reader says, so the status is never carried by the mark alone.

import type { PlanStatus, PlanStep } from '../../lib/api/types';

/** The mark before a step: done, doing, to do. */
export function planMark(status: PlanStatus): string {
  switch (status) {
    case 'completed':
      return '✓';
    case 'in_progress':
      return '▸';
    case 'pending':
      return '○';
  }
}

/** A step's status in words. */
export function planStatusWords(status: PlanStatus): string {
  switch (status) {
    case 'completed':
      return 'done';
    case 'in_progress':
      return 'in progress';
    case 'pending':
      return 'to do';
  }
}

/** "2 of 3 done", beside the plan's heading. */
export function planProgress(plan: readonly PlanStep[]): string {
  const done = plan.filter((s) => s.status === 'completed').length;
  return `${done} of ${plan.length} done`;
}
