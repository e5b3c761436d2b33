import { describe, expect, it } from 'vitest';
import { makeAcpRuntime, makeKey, makeRuntime } from '../../lib/testing/fixtures';
import {
  agentRuntimeChoices,
  connectableKeys,
  connectionLabel,
  offerable,
  installerName,
  listWords,
  runnable,
  sharedKeyLosers,
  teamsOnRuntime,
  sourceWords,
  vaultWords,
} from './catalog';

describe('catalog words', () => {
  it('labels connection states in plain words', () => {
    expect(connectionLabel('not-installed')).toBe('Not installed');
    expect(connectionLabel('needs-auth')).toBe('Needs a key');
    expect(connectionLabel('needs-login')).toBe('Needs sign-in');
    expect(connectionLabel('ready')).toBe('Ready');
  });

  it('says where a credential comes from', () => {
    expect(sourceWords('env')).toBe('from your environment');
    expect(sourceWords('vault')).toBe('from the vault');
    expect(sourceWords('openclaw')).toBe("from OpenClaw's .env");
    expect(sourceWords(null)).toBe('');
  });

  it('says where keys are kept, and why not in the keychain', () => {
    expect(vaultWords({ backend: 'keychain', detail: '', probing: false })).toEqual({
      text: 'Keys are kept in your OS keychain.',
      detail: '',
    });
    expect(vaultWords({ backend: 'file', detail: 'no Secret Service on the session bus', probing: false })).toEqual({
      text: 'Keys are kept in an encrypted file in your Clawboo folder.',
      detail: 'No Secret Service on the session bus.',
    });
    expect(vaultWords({ backend: 'file', detail: '', probing: true }).text).toBe('Checking the keychain…');
  });

  it('joins names and finds the installer of a command', () => {
    expect(listWords(['A'])).toBe('A');
    expect(listWords(['A', 'B', 'C'])).toBe('A, B and C');
    expect(installerName("pipx install 'hermes-agent<1'")).toBe('pipx');
  });

  it('offers the run form only runtimes this build can run and this machine has', () => {
    const list = [
      makeRuntime({ id: 'claude-code' }),
      makeRuntime({ id: 'codex', canRun: true, installed: false }),
      makeRuntime({ id: 'hermes', canRun: true, installed: true, connectionState: 'needs-auth' }),
      makeRuntime({ id: 'clawboo-mock', canRun: true, installed: true }),
    ];
    expect(runnable(list).map((r) => r.id)).toEqual(['hermes', 'clawboo-mock']);
  });

  it('offers a key form for api-key runtimes and agents with their own login, not for others', () => {
    const keys = [makeKey('anthropic')];
    expect(connectableKeys({ authKind: 'api-key', keys })).toEqual(keys);
    expect(connectableKeys({ authKind: 'agent-login', keys })).toEqual(keys);
    expect(connectableKeys({ authKind: 'oauth', keys })).toEqual([]);
    expect(connectableKeys({ authKind: 'none', keys })).toEqual([]);
  });

  it('offers ACP agents for agents only once installed, and other runtimes as before', () => {
    const list = [
      makeRuntime({ id: 'claude-code', canRun: true, installed: false }),
      makeRuntime({ id: 'hermes', canRun: false }),
      makeAcpRuntime({ id: 'acp-gemini', installed: false, connectionState: 'not-installed' }),
      makeAcpRuntime({ id: 'acp-mine' }),
      makeAcpRuntime({ id: 'acp-old', canRun: false }),
    ];
    expect(list.filter(offerable).map((r) => r.id)).toEqual(['claude-code', 'acp-mine']);
    const choices = agentRuntimeChoices(list);
    expect(choices.runtimes.map((r) => r.id)).toEqual(['claude-code', 'hermes']);
    expect(choices.acp.map((r) => r.id)).toEqual(['acp-mine']);
  });

  it('names the runtimes that lose a shared stored key on disconnect', () => {
    const stored = (id: string, envVar: string) => makeKey(id, { envVar, connected: true, source: 'vault' });
    const claude = makeRuntime({ keys: [stored('anthropic', 'ANTHROPIC_API_KEY')] });
    const native = makeRuntime({
      id: 'clawboo-native',
      name: 'Clawboo Native',
      installed: true,
      keys: [stored('anthropic', 'ANTHROPIC_API_KEY'), stored('openrouter', 'OPENROUTER_API_KEY')],
    });
    const hermesFromEnv = makeRuntime({
      id: 'hermes',
      name: 'Hermes',
      installed: true,
      keys: [makeKey('anthropic', { envVar: 'ANTHROPIC_API_KEY', connected: true, source: 'env' })],
    });
    expect(sharedKeyLosers(claude, [claude, native, hermesFromEnv])).toEqual([
      { name: 'Clawboo Native', envVars: ['ANTHROPIC_API_KEY'] },
    ]);
    // A key that is only in the environment is not deleted by anyone.
    expect(sharedKeyLosers(hermesFromEnv, [claude, native, hermesFromEnv])).toEqual([]);
  });

  it('does not name a runtime that is not installed among those losing a shared key', () => {
    const stored = (id: string, envVar: string) => makeKey(id, { envVar, connected: true, source: 'vault' });
    const native = makeRuntime({ id: 'clawboo-native', name: 'Clawboo Native', installed: true, keys: [stored('anthropic', 'ANTHROPIC_API_KEY')] });
    const claudeMissing = makeRuntime({ id: 'claude-code', name: 'Claude Code', installed: false, keys: [stored('anthropic', 'ANTHROPIC_API_KEY')] });
    expect(sharedKeyLosers(native, [native, claudeMissing])).toEqual([]);
  });

  it('names the teams a disconnect stops: those with a member on the runtime', () => {
    const teams = [
      { name: 'Docs', members: [{ runtime: 'clawboo-native' }, { runtime: 'clawboo-mock' }] },
      { name: 'Ops', members: [{ runtime: 'claude-code' }] },
      { name: 'Web', members: [{ runtime: 'clawboo-native' }] },
    ];
    expect(teamsOnRuntime('clawboo-native', teams)).toEqual(['Docs', 'Web']);
    expect(teamsOnRuntime('hermes', teams)).toEqual([]);
  });
});
