// Pure logic of the OpenClaw card: what each connection state reads as, the
// retry line, the env-override notes, and the MCP button's label.

import type { OpenClawSettings, OpenClawStatus } from '../../lib/api/openclawTypes';

export type Tone = 'ok' | 'warn' | 'bad' | 'idle';

export interface CardView {
  /** connection.status as sent (unknown values pass through). */
  state: string;
  /** The pill in the card's header. */
  label: string;
  tone: Tone;
  /** The card's main line. */
  headline: string;
  /** The Gateway's error in words ("" when none). */
  error: string;
  /** "Retrying at 01:02:03 (in 4s) · 3 failed attempts" ("" when no retry is planned). */
  retry: string;
  /** A spinner goes with the headline (connecting, starting). */
  busy: boolean;
  connected: boolean;
}

/** "in 4s", "in 2m 05s", "now". */
export function untilText(at: number, now: number): string {
  const s = Math.ceil((at - now) / 1000);
  if (!Number.isFinite(s) || s <= 0) return 'now';
  if (s < 60) return `in ${s}s`;
  return `in ${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** HH:MM:SS in the viewer's local time. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

export function retryText(nextRetryAt: number | undefined, attempts: number, now: number, fmt = clockTime): string {
  if (!nextRetryAt) return '';
  const tries = attempts > 0 ? ` · ${attempts} failed attempt${attempts === 1 ? '' : 's'}` : '';
  return `Retrying at ${fmt(nextRetryAt)} (${untilText(nextRetryAt, now)})${tries}`;
}

export function cardView(s: OpenClawStatus, now: number, fmt = clockTime): CardView {
  const c = s.connection;
  const error = (c.error ?? '').trim();
  const retry = retryText(c.nextRetryAt, c.attempts, now, fmt);
  const base = { state: c.status, error: '', retry: '', busy: false, connected: false };
  switch (c.status) {
    case 'unconfigured':
      return { ...base, label: 'Not set up', tone: 'idle', headline: 'Not connected: set the Gateway URL' };
    case 'connecting':
      return error
        ? { ...base, label: 'Reconnecting', tone: 'warn', headline: `Reconnecting — ${error}`, busy: true, retry }
        : { ...base, label: 'Connecting', tone: 'warn', headline: 'Connecting…', busy: true };
    case 'starting':
      return { ...base, label: 'Starting', tone: 'warn', headline: 'The Gateway is starting…', busy: true, retry };
    case 'connected':
      return {
        ...base,
        label: 'Connected',
        tone: 'ok',
        headline: c.serverVersion ? `OpenClaw ${c.serverVersion}` : 'OpenClaw',
        connected: true,
      };
    case 'error':
      return {
        ...base,
        label: 'Error',
        tone: 'bad',
        headline: 'Cannot connect to the Gateway',
        error: error || 'the last attempt failed',
        retry,
      };
    case 'closed':
      return { ...base, label: 'Closed', tone: 'idle', headline: 'The connection is closed: Clawboo is shutting down.' };
    default:
      return { ...base, label: c.status, tone: 'warn', headline: `Gateway connection: ${c.status}`, error, retry };
  }
}

/** The notes under the settings form when the environment overrides it. */
export function envNotes(s: OpenClawSettings): { url: string; token: string } {
  return {
    url: s.urlSource === 'env' ? 'Set by CLAWBOO_OPENCLAW_URL (overrides this form).' : '',
    token:
      s.tokenSource === 'env'
        ? 'Set by CLAWBOO_OPENCLAW_TOKEN (overrides this form).'
        : s.tokenSource === 'openclaw'
          ? "Read from OpenClaw's own .env (CLAWBOO_OPENCLAW_TOKEN there); a token saved here is used instead."
          : '',
  };
}

/** The token field's placeholder: the masked token when one is set. */
export function tokenPlaceholder(s: OpenClawSettings): string {
  return s.tokenSet && s.tokenMasked ? s.tokenMasked : 'Gateway token (optional)';
}

/** The settings form's body: only what changed; the token only when typed. */
export function settingsUpdate(s: OpenClawSettings, url: string, token: string): { url?: string; token?: string } {
  const out: { url?: string; token?: string } = {};
  if (s.urlSource !== 'env' && url.trim() !== (s.urlSource === 'settings' ? s.url : '')) out.url = url.trim();
  if (s.tokenSource !== 'env' && token.trim() !== '') out.token = token.trim();
  return out;
}

/** "1 agent", "3 agents". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
