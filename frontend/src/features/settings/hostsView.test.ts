import { describe, expect, it } from 'vitest';
import { hostChoiceLabel, hostChoices, installable, installWords, isTrouble, placementError, placeWords, runtimeWords, stateInline, stateWords, whatItIs } from './hostsView';

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

describe('where work runs, in words', () => {
  const hosts = [
    { id: 'h1', name: 'Build box', state: 'ready' as const },
    { id: 'h2', name: 'Old laptop', state: 'unreachable' as const },
  ];

  it('names a host by its name, with the state of one not ready', () => {
    expect(hostChoiceLabel(hosts[0]!)).toBe('Build box');
    expect(hostChoiceLabel(hosts[1]!)).toBe('Old laptop — unreachable');
    expect(hostChoiceLabel({ name: 'Mac', state: 'unknown-host-key' })).toBe('Mac — its key needs your check');
    expect(hostChoiceLabel({ name: 'Mac', state: 'connecting' })).toBe('Mac — connecting…');
    expect(stateInline({ state: 'version-mismatch' })).toBe('needs an update');
  });

  it('offers this computer first, then each host, and keeps a saved host the list lost', () => {
    expect(hostChoices(hosts, null, true)).toEqual([
      { value: '', label: 'This computer' },
      { value: 'h1', label: 'Build box' },
      { value: 'h2', label: 'Old laptop — unreachable' },
    ]);
    expect(hostChoices(hosts, 'h1', true)).toHaveLength(3);
    expect(hostChoices([], 'gone', true)).toEqual([
      { value: '', label: 'This computer' },
      { value: 'gone', label: 'A removed host' },
    ]);
    expect(hostChoices([], 'h1', false)[1]).toEqual({ value: 'h1', label: 'Its host (loading…)' });
  });

  it('says "on" a host by name, nothing for this computer, and never an id', () => {
    expect(placeWords(null, hosts, true)).toBe('');
    expect(placeWords(undefined, hosts, true)).toBe('');
    expect(placeWords('', hosts, true)).toBe('');
    expect(placeWords('h2', hosts, true)).toBe('on Old laptop');
    expect(placeWords('gone', hosts, true)).toBe('on a removed host');
    expect(placeWords('h1', [], false)).toBe('on another computer');
  });

  it('words the refusal of a host that is gone without its id; other refusals unchanged', () => {
    expect(placementError("no host '01J9ZX': add it in Settings → Hosts first")).toBe(
      'That host was removed: choose another, or add it again in Settings → Hosts.',
    );
    expect(placementError('name is required')).toBe('name is required');
  });
});

describe('installing on a host', () => {
  const catalog = [
    { id: 'clawboo-native', name: 'Clawboo native', builtIn: true, installCommand: null },
    { id: 'hermes', name: 'Hermes', builtIn: false, installCommand: "pipx install 'hermes-agent<1'" },
    { id: 'claude-code', name: 'Claude Code', builtIn: false, installCommand: 'npm install -g @anthropic-ai/claude-code' },
    { id: 'my-acp', name: 'My agent', builtIn: false, installCommand: null },
  ];

  it('offers what the host lacks and can be installed, by name', () => {
    expect(installable({ runtimes: ['claude-code'] }, catalog)).toEqual([{ id: 'hermes', name: 'Hermes' }]);
    expect(installable({ runtimes: [] }, catalog).map((r) => r.name)).toEqual(['Claude Code', 'Hermes']);
  });

  it('says where an install stands in words', () => {
    expect(installWords('Build box', 'Hermes', { type: 'output', line: 'pipx install hermes-agent<1', stream: 'stdout' })).toBe(
      'Build box: pipx install hermes-agent<1',
    );
    expect(installWords('Build box', 'Hermes', { type: 'error', code: 'PYTHON_MISSING', message: 'Neither pipx nor Python was found.' })).toBe(
      'Hermes was not installed on Build box: Neither pipx nor Python was found.',
    );
    expect(installWords('Build box', 'Hermes', { type: 'complete', success: true })).toBe('Hermes is installed on Build box.');
  });
});
