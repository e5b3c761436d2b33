import { describe, expect, it } from 'vitest';
import { isTrouble, runtimeWords, stateWords, whatItIs } from './hostsView';

describe('hosts in words', () => {
  it('names each state, and what a host is', () => {
    expect(stateWords({ state: 'unknown-host-key' })).toBe('Its key needs your check');
    expect(stateWords({ state: 'host-key-changed' })).toBe('Its key has changed: refused');
    expect(whatItIs({ os: 'linux', arch: 'arm64', cores: 1, memoryBytes: 2 * 2 ** 30 })).toBe('Linux · arm64 · 1 core · 2.0 GiB');
    expect(whatItIs({ os: '', arch: '', cores: 0, memoryBytes: 0 })).toBe('');
    expect(isTrouble({ state: 'unreachable' })).toBe(true);
    expect(isTrouble({ state: 'unknown-host-key' })).toBe(false);
    const listed = [
      { id: 'claude-code', name: 'Claude Code' },
      { id: 'acp-opencode', name: 'OpenCode' },
    ];
    expect(runtimeWords({ runtimes: ['claude-code', 'acp-opencode'] }, listed)).toBe('Runtimes there: Claude Code, OpenCode');
    expect(runtimeWords({ runtimes: [] }, listed)).toBe('No agent runtime found there yet.');
  });
});
