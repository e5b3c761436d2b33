import { describe, expect, it } from 'vitest';
import { inWords, knownErrorWords, notReadyWords } from './errorWords';

describe('errors in words', () => {
  it('says what a runtime that is not ready needs, never its state code', () => {
    expect(inWords('Codex is not ready (needs-login)')).toBe('Codex needs `codex login`');
    expect(inWords('Codex is not ready (needs-auth)')).toBe('Codex needs `codex login`');
    expect(inWords('Claude Code is not ready (needs-auth)')).toBe('Claude Code needs an API key: add one on Runtimes');
    expect(inWords('Hermes is not ready (not-installed)')).toBe('Hermes is not installed: install it on Runtimes');
    expect(notReadyWords('Hermes', 'weird')).toBe('Hermes is not ready: see Runtimes');
  });

  it('says a native run’s missing or refused key in words', () => {
    expect(inWords('no model provider: auth: no provider key available (checked anthropic and fallbacks)')).toBe(
      'No usable API key for anthropic: add or fix it on Runtimes',
    );
    expect(inWords('no model provider: openai: auth: 401 invalid key')).toBe('No usable API key for openai: add or fix it on Runtimes');
    expect(inWords('no model provider: no model providers are configured')).toBe('No model provider is set up: add an API key on Runtimes');
    expect(inWords('no model provider: network: dial tcp: timeout')).toBe('The model provider could not be reached: check the network and try again');
  });

  it('leaves other text alone', () => {
    expect(knownErrorWords('the team’s budget is paused')).toBeNull();
    expect(inWords('exit status 2')).toBe('exit status 2');
    for (const s of ['(needs-auth)', 'needs-auth', 'no model provider']) expect(inWords(`Codex is not ready (needs-auth)`)).not.toContain(s);
  });
});
