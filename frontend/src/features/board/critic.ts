// The critic's settings as the board shows them (backend/review): a task's
// auto / on / off, and what auto means for its team.

import type { CriticMode } from '../../lib/api/boardTypes';
import type { Run } from '../../lib/api/types';

/** The choices of a task's critic select, in order. */
export const CRITIC_OPTIONS: readonly { value: CriticMode; label: string }[] = [
  { value: 'auto', label: 'Auto (review risky changes)' },
  { value: 'on', label: 'Always' },
  { value: 'off', label: 'Never' },
];

/**
 * What a task's critic setting does, in a sentence, as backend/review and
 * the supervisor do it: the critic runs only after a verify command (the
 * task's, else the repository's .clawboo/verify) passed, so a task with
 * none is never reviewed; auto adds the risk rule and the team's switch.
 * teamCritic is its team's switch (null: no team, or not known yet).
 */
export function criticNote(mode: CriticMode, teamCritic: boolean | null): string {
  const noVerify = 'With no verify command (the task’s or the repository’s .clawboo/verify) there is no review.';
  switch (mode) {
    case 'on':
      return `A fresh session reviews every change after its verify command passes, before it goes to review. ${noVerify}`;
    case 'off':
      return 'The critic never reviews this task.';
  }
  if (teamCritic === false) return 'This task’s team has the critic off, so auto means no review for this team.';
  return `Reviewed after its verify command passes when the change is risky: a delegated or split task, more than 5 files or more than 300 lines. ${noVerify}`;
}

/** A run's label in a task's run list: the critic's reviews are named. */
export function runRoleLabel(r: Run): string {
  return r.role === 'critic' ? 'Critic review' : '';
}
