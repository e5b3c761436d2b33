// Known runtime and provider failures in words a person can act on. The
// backend says some of them by code ("Codex is not ready (needs-auth)",
// "no model provider: auth: no provider key available (checked anthropic
// and fallbacks)"); wherever such text reaches a page (mission control's
// why, a chat turn's error) it goes through knownErrorWords first. Unknown
// text is left alone (null): it is already the backend's words.

import type { ConnectionState } from '../../lib/api/types';

/** Words for a runtime that is not ready, by its connection state; Codex signs in with `codex login`. */
export function notReadyWords(name: string, state: ConnectionState | string): string {
  const codex = /^codex$/i.test(name.trim());
  switch (state) {
    case 'needs-auth':
      return codex ? 'Codex needs `codex login`' : `${name} needs an API key: add one on Runtimes`;
    case 'needs-login':
      return codex ? 'Codex needs `codex login`' : `${name} needs you to sign in: see Runtimes`;
    case 'not-installed':
      return `${name} is not installed: install it on Runtimes`;
    default:
      return `${name} is not ready: see Runtimes`;
  }
}

const NOT_READY = /^(.+?) is not ready \(([a-z-]+)\)\.?$/;
const NO_PROVIDER = /^no model provider: (?:([\w.-]+): )?([a-z_]+): ([\s\S]*)$/;
const CHECKED = /checked ([\w.-]+(?:, [\w.-]+)*)/;

/** The words for a known failure, or null when `text` is not one (keep the text as it is). */
export function knownErrorWords(text: string): string | null {
  const t = text.trim();
  const nr = NOT_READY.exec(t);
  if (nr) return notReadyWords(nr[1]!, nr[2]!);
  if (t === 'no model provider: no model providers are configured') return 'No model provider is set up: add an API key on Runtimes';
  const np = NO_PROVIDER.exec(t);
  if (np) {
    const [, provider, cls, rest] = np;
    if (cls === 'auth') {
      const checked = CHECKED.exec(rest!)?.[1] ?? provider;
      return checked
        ? `No usable API key for ${checked}: add or fix it on Runtimes`
        : 'The model provider refused the API key: add or fix it on Runtimes';
    }
    if (cls === 'network') return 'The model provider could not be reached: check the network and try again';
    if (cls === 'rate_limit') return 'The model provider is limiting requests: try again in a while';
    return `No model provider could take the run: ${rest}`;
  }
  if (/^runtime \S+ is not available$/.test(t)) return 'This runtime is not available in this Clawboo: see Runtimes';
  return null;
}

/** `text` in words: the known failure's words, else the text itself. */
export function inWords(text: string): string {
  return knownErrorWords(text) ?? text;
}
