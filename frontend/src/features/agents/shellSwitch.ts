// The shell switch's words, verbatim from seed 004 ("Running commands", "The
// switch"): the label, the helper line, the confirm dialog's title, body and
// button, and the note the card adds once the switch is on. Typographic
// apostrophe included; change none of them without changing the seed. One
// departure: the seed's "Boo" (never explained in the UI) reads "agent"
// (issue 16 item 16).

export const SHELL_LABEL = 'Let this agent ask to run commands';
export const SHELL_HELPER =
  'You are asked before every command. Nothing is remembered, so a command you allowed once will ask again the next time.';
export const SHELL_CONFIRM_TITLE = 'Let this agent ask to run commands?';
export const SHELL_CONFIRM_BODY =
  'It will be able to propose running programs on this computer. You are asked to approve every command before it runs, and nothing is remembered, so you will see each one.';
export const SHELL_CONFIRM_BUTTON = 'Allow it to ask';
export const SHELL_ON_NOTE =
  'Commands run in this agent\u2019s working folder, as you, with access to the network. One program at a time: it cannot use pipes, redirects, or a shell.';

/**
 * What a click on the switch does: turning it on only asks (the confirm
 * dialog sets it); turning it off takes effect at once.
 */
export function shellClick(currentlyOn: boolean): 'confirm' | 'off' {
  return currentlyOn ? 'off' : 'confirm';
}
