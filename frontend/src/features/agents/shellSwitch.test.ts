import { describe, expect, it } from 'vitest';
import {
  SHELL_CONFIRM_BODY,
  SHELL_CONFIRM_BUTTON,
  SHELL_CONFIRM_TITLE,
  SHELL_HELPER,
  SHELL_LABEL,
  SHELL_ON_NOTE,
  shellClick,
} from './shellSwitch';

// Seed 004, "Running commands" > "The switch", character for character.
describe('the shell switch', () => {
  it('uses the seed’s words verbatim', () => {
    expect(SHELL_LABEL).toBe('Let this agent ask to run commands');
    expect(SHELL_HELPER).toBe(
      'You are asked before every command. Nothing is remembered, so a command you allowed once will ask again the next time.',
    );
    expect(SHELL_CONFIRM_TITLE).toBe('Let this agent ask to run commands?');
    expect(SHELL_CONFIRM_BODY).toBe(
      'It will be able to propose running programs on this computer. You are asked to approve every command before it runs, and nothing is remembered, so you will see each one.',
    );
    expect(SHELL_CONFIRM_BUTTON).toBe('Allow it to ask');
    expect(SHELL_ON_NOTE).toBe(
      'Commands run in this agent’s working folder, as you, with access to the network. One program at a time: it cannot use pipes, redirects, or a shell.',
    );
    expect(SHELL_ON_NOTE).toContain('agent\u2019s');
    // "Boo" was never explained in the UI: every line says "agent".
    for (const s of [SHELL_LABEL, SHELL_HELPER, SHELL_CONFIRM_TITLE, SHELL_CONFIRM_BODY, SHELL_CONFIRM_BUTTON, SHELL_ON_NOTE]) expect(s).not.toMatch(/\bBoo\b/);
  });

  it('asks before turning on, never before turning off', () => {
    expect(shellClick(false)).toBe('confirm');
    expect(shellClick(true)).toBe('off');
  });
});
