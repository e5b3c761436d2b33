import { describe, expect, it } from 'vitest';
import { entrySetUp, openClawSetUp } from './setUp';

const status = (url: string, tokenSet: boolean, conn: string) =>
  ({ connection: { status: conn, attempts: 0 }, settings: { url, urlSource: '', tokenSet, tokenSource: '' } }) as never;

describe('set up', () => {
  it('counts a catalog runtime once installed', () => {
    expect(entrySetUp({ installed: true })).toBe(true);
    expect(entrySetUp({ installed: false })).toBe(false);
    expect(entrySetUp(undefined)).toBe(false);
  });

  it('counts OpenClaw once a Gateway was given or tried, not on a fresh home', () => {
    expect(openClawSetUp(status('', false, 'unconfigured'))).toBe(false);
    expect(openClawSetUp(null)).toBe(false);
    expect(openClawSetUp(status('ws://127.0.0.1:18789', false, 'error'))).toBe(true);
    expect(openClawSetUp(status('', true, 'unconfigured'))).toBe(true);
  });
});
