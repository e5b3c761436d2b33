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

const FIELDS: readonly string[] = ['name', 'command', 'args', 'envVars'] satisfies AcpField[];

/**
 * The field a refusal of POST /api/acp/agents is about (the backend names
 * it in the 400's `field`), and its words capitalised as the form shows
 * them. field is null for a refusal about none of them (a server failure).
 */
export function acpRefusal(message: string, body: unknown): { field: AcpField | null; text: string } {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  const f = body !== null && typeof body === 'object' && 'field' in body ? body.field : null;
  return { field: typeof f === 'string' && FIELDS.includes(f) ? (f as AcpField) : null, text };
}

/** An ACP agent's command as one would type it ("gemini --acp"); an argument with spaces is quoted. */
export function commandWords(c: Pick<AcpCommand, 'command' | 'args'>): string {
  return [c.command, ...c.args.map((a) => (a === '' || /\s/.test(a) ? JSON.stringify(a) : a))].join(' ');
}

/**
 * Whether Clawboo can install a runtime itself: the backend gives an
 * install command only for what it installs (npm, pipx); Goose, which has
 * its own installer, and a person's own agent have none.
 */
export function canInstall(rt: Pick<RuntimeEntry, 'installCommand'>): boolean {
  return rt.installCommand !== null;
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
