// Plain words and small decisions about ACP agents (runtimes of family
// "acp": any program that speaks the Agent Client Protocol over stdio),
// kept out of the components so they are tested once: the catalog's and a
// person's own, the add form's fields as the API wants them, which field a
// refusal is about, and how each signs in.

import type { AcpCommand, RuntimeEntry } from '../../lib/api/types';
import { listWords } from './catalog';

export const isAcp = (r: Pick<RuntimeEntry, 'family'>): boolean => r.family === 'acp';

/** A person's own ACP agent (it can be removed); the catalog's cannot. */
export const isCustomAcp = (r: Pick<RuntimeEntry, 'family' | 'acp'>): boolean => isAcp(r) && r.acp?.custom === true;

/** The ACP agents of a list: the catalog's first, then a person's own, each in the backend's order. */
export function acpCards(list: readonly RuntimeEntry[]): RuntimeEntry[] {
  const acp = list.filter(isAcp);
  return [...acp.filter((r) => !isCustomAcp(r)), ...acp.filter(isCustomAcp)];
}

/** The arguments field: one argument per line, blank lines dropped, each trimmed (a stray space is never meant). */
export function parseArgs(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** The key names field: names separated by commas or spaces. */
export function parseEnvVars(text: string): string[] {
  return text.split(/[\s,]+/).filter((v) => v !== '');
}

export type AcpField = 'name' | 'command' | 'args' | 'envVars';

/** What would mean something only to a shell (the backend refuses it in the command and each argument). */
const SHELL = /[|&;<>$`\\"'*?[\]{}~#()]/;

/**
 * The field a refusal of POST /api/acp/agents is about, and its words as
 * the form says them (the backend's, with its JSON field name made plain).
 * field is null for a refusal about none of them (a server failure).
 */
export function acpRefusal(message: string, form: { command: string; args: readonly string[] }): { field: AcpField | null; text: string } {
  const plain = message.replace(/^envVars are /, 'key names are ');
  const text = plain.charAt(0).toUpperCase() + plain.slice(1);
  if (/^name is required/.test(message)) return { field: 'name', text };
  if (/^command must be/.test(message)) return { field: 'command', text };
  if (/^no shell syntax/.test(message)) {
    const inArgs = !SHELL.test(form.command) && !/\s/.test(form.command.trim()) && form.args.some((a) => SHELL.test(a));
    return { field: inArgs ? 'args' : 'command', text };
  }
  if (/^envVars are/.test(message)) return { field: 'envVars', text };
  if (/^at most \d+ arguments/.test(message)) return { field: 'args', text };
  return { field: null, text };
}

/** An ACP agent's command as one would type it ("gemini --acp"); an argument with spaces is quoted. */
export function commandWords(c: Pick<AcpCommand, 'command' | 'args'>): string {
  return [c.command, ...c.args.map((a) => (a === '' || /\s/.test(a) ? JSON.stringify(a) : a))].join(' ');
}

/**
 * Whether Clawboo can install a runtime itself. The backend installs with
 * npm or pipx and says so in the command a person would type; any other
 * text (Goose's pointer to its own guide) or none (a person's own agent)
 * means the person installs it.
 */
export function canInstall(rt: Pick<RuntimeEntry, 'installCommand'>): boolean {
  return /^(npm|pipx)\s/.test(rt.installCommand ?? '');
}

/**
 * How a runtime signs in, for its card: words, the terminal command when it
 * has one, and for an agent with its own login why Clawboo counts it ready
 * (it cannot see that login), "" for others.
 */
export function signInWords(rt: Pick<RuntimeEntry, 'name' | 'authKind' | 'loginCommand' | 'envVar' | 'keys'>): {
  text: string;
  command: string | null;
  note: string;
} {
  switch (rt.authKind) {
    case 'agent-login':
      return rt.loginCommand
        ? {
            text: 'Signs in with its own login:',
            command: rt.loginCommand,
            note: `Clawboo cannot see that sign-in, so it counts ${rt.name} ready once installed.`,
          }
        : {
            text: 'Signs in its own way, if it needs to.',
            command: null,
            note: `Clawboo cannot see how, so it counts ${rt.name} ready while its program is here.`,
          };
    case 'api-key': {
      const key = rt.envVar ?? rt.keys[0]?.envVar;
      return { text: `Signs in with an API key${key ? ` (${key})` : ''}, pasted here once it is installed.`, command: null, note: '' };
    }
    case 'oauth':
      return { text: 'Signs in with its own login:', command: rt.loginCommand ?? null, note: '' };
    case 'none':
      return { text: 'Needs no sign-in.', command: null, note: '' };
  }
}

/** The keys an agent that signs in by itself is also given, in words ("" when none). */
export function passedKeysWords(rt: Pick<RuntimeEntry, 'acp'>): string {
  const vars = rt.acp?.envVars ?? [];
  return vars.length ? `It is also given ${listWords(vars)} when set.` : '';
}
