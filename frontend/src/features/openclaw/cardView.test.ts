import { describe, expect, it } from 'vitest';
import { cardView, envNotes, retryText, settingsUpdate, tokenPlaceholder, untilText } from './cardView';
import { decodeOpenClawStatus } from '../../lib/api/openclawDecode';
import type { OpenClawSettings, OpenClawStatus } from '../../lib/api/openclawTypes';

const NOW = 1_796_000_000_000;
const fmt = (ms: number): string => `T+${(ms - NOW) / 1000}`;

const noSettings: OpenClawSettings = { url: '', urlSource: '', tokenSet: false, tokenSource: '' };

function status(connection: Partial<OpenClawStatus['connection']>): OpenClawStatus {
  return decodeOpenClawStatus({ connection: { status: 'unconfigured', attempts: 0, ...connection }, settings: noSettings });
}

describe('the OpenClaw card', () => {
  it('asks for a URL while unconfigured', () => {
    const v = cardView(status({ status: 'unconfigured' }), NOW, fmt);
    expect(v).toMatchObject({ label: 'Not set up', tone: 'idle', headline: 'Not connected: set the Gateway URL', busy: false });
    expect(v.error).toBe('');
    expect(v.retry).toBe('');
  });

  it('connects, and says why when it reconnects', () => {
    expect(cardView(status({ status: 'connecting' }), NOW, fmt)).toMatchObject({ label: 'Connecting', headline: 'Connecting…', busy: true });
    const v = cardView(status({ status: 'connecting', error: 'openclaw: the Gateway connection was lost', nextRetryAt: NOW + 3000 }), NOW, fmt);
    expect(v).toMatchObject({ label: 'Reconnecting', tone: 'warn', headline: 'Reconnecting — openclaw: the Gateway connection was lost' });
    expect(v.retry).toBe('Retrying at T+3 (in 3s)');
  });

  it('waits while the Gateway starts', () => {
    expect(cardView(status({ status: 'starting' }), NOW, fmt)).toMatchObject({
      label: 'Starting',
      headline: 'The Gateway is starting…',
      busy: true,
    });
  });

  it('shows the version when connected', () => {
    const v = cardView(status({ status: 'connected', serverVersion: '2026.9.6', protocol: 4 }), NOW, fmt);
    expect(v).toMatchObject({ label: 'Connected', tone: 'ok', headline: 'OpenClaw 2026.9.6', connected: true, error: '' });
    expect(cardView(status({ status: 'connected' }), NOW, fmt).headline).toBe('OpenClaw');
  });

  it('shows the error and the next retry', () => {
    const v = cardView(
      status({ status: 'error', error: 'openclaw gateway: UNAUTHORIZED: bad token', attempts: 3, nextRetryAt: NOW + 125_000 }),
      NOW,
      fmt,
    );
    expect(v).toMatchObject({ label: 'Error', tone: 'bad', error: 'openclaw gateway: UNAUTHORIZED: bad token', connected: false });
    expect(v.retry).toBe('Retrying at T+125 (in 2m 05s) · 3 failed attempts');
    expect(cardView(status({ status: 'error' }), NOW, fmt).error).toBe('the last attempt failed');
  });

  it('says closed, and passes an unknown state through', () => {
    expect(cardView(status({ status: 'closed' }), NOW, fmt)).toMatchObject({ label: 'Closed', tone: 'idle' });
    expect(cardView(status({ status: 'paired' }), NOW, fmt)).toMatchObject({ label: 'paired', headline: 'Gateway connection: paired' });
  });

  it('counts down to a retry', () => {
    expect(untilText(NOW - 1, NOW)).toBe('now');
    expect(untilText(NOW + 400, NOW)).toBe('in 1s');
    expect(untilText(NOW + 60_000, NOW)).toBe('in 1m 00s');
    expect(retryText(0, 2, NOW, fmt)).toBe('');
    expect(retryText(NOW + 1000, 1, NOW, fmt)).toBe('Retrying at T+1 (in 1s) · 1 failed attempt');
  });

  it('decodes a status with missing lists', () => {
    const s = decodeOpenClawStatus({ connection: { status: 'error' }, settings: noSettings, health: null });
    expect(s.agents).toEqual([]);
    expect(s.mcpServers).toEqual({});
    expect(s.mcpRegistered).toBe(false);
    expect(s.connection.attempts).toBe(0);
    expect(() => decodeOpenClawStatus({ connection: {} })).toThrow(/OpenClaw status/);
  });
});

describe('the OpenClaw settings form', () => {
  const vault: OpenClawSettings = { url: 'ws://127.0.0.1:18789', urlSource: 'settings', tokenSet: true, tokenMasked: '••••f123', tokenSource: 'vault' };

  it('shows the masked token as the placeholder', () => {
    expect(tokenPlaceholder(vault)).toBe('••••f123');
    expect(tokenPlaceholder(noSettings)).toBe('Gateway token (optional)');
  });

  it('notes what the environment overrides', () => {
    expect(envNotes(vault)).toEqual({ url: '', token: '' });
    expect(envNotes({ ...vault, urlSource: 'env', tokenSource: 'env' })).toEqual({
      url: 'Set by CLAWBOO_OPENCLAW_URL (overrides this form).',
      token: 'Set by CLAWBOO_OPENCLAW_TOKEN (overrides this form).',
    });
    expect(envNotes({ ...vault, tokenSource: 'openclaw' }).token).toMatch(/OpenClaw's own \.env/);
  });

  it('sends only what changed, and the token only when typed', () => {
    expect(settingsUpdate(vault, 'ws://127.0.0.1:18789', '')).toEqual({});
    expect(settingsUpdate(vault, ' ws://h:1 ', ' tok ')).toEqual({ url: 'ws://h:1', token: 'tok' });
    expect(settingsUpdate(vault, '', '')).toEqual({ url: '' });
    expect(settingsUpdate(noSettings, 'ws://h:1', '')).toEqual({ url: 'ws://h:1' });
    expect(settingsUpdate({ ...vault, urlSource: 'env', tokenSource: 'env' }, 'ws://x:1', 'tok')).toEqual({});
  });
});
