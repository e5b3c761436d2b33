import { describe, expect, it } from 'vitest';
import { makeAcpRuntime, makeKey, makeRuntime } from '../../lib/testing/fixtures';
import {
  acpCards,
  acpRefusal,
  canInstall,
  commandWords,
  isCustomAcp,
  parseArgs,
  parseEnvVars,
  passedKeysWords,
  signInWords,
} from './acp';

const catalogAcp = (id: string, over = {}) =>
  makeAcpRuntime({ id, name: id, acp: { command: id, args: ['--acp'], envVars: [], custom: false }, ...over });

describe('ACP agents', () => {
  it('lists the catalog’s agents first, then a person’s own, leaving other runtimes out', () => {
    const list = [
      makeRuntime({ id: 'claude-code' }),
      makeAcpRuntime({ id: 'acp-mine' }),
      catalogAcp('acp-gemini'),
      makeRuntime({ id: 'clawboo-native', family: 'native' }),
      catalogAcp('acp-goose'),
    ];
    expect(acpCards(list).map((r) => r.id)).toEqual(['acp-gemini', 'acp-goose', 'acp-mine']);
    expect(isCustomAcp(list[1]!)).toBe(true);
    expect(isCustomAcp(list[2]!)).toBe(false);
    expect(isCustomAcp(makeRuntime({ acp: { command: 'x', args: [], envVars: [], custom: true } }))).toBe(false);
  });

  it('reads the arguments one per line and the key names split by commas or spaces', () => {
    expect(parseArgs('--acp\n\n  --model x  \r\n')).toEqual(['--acp', '--model x']);
    expect(parseArgs('  \n')).toEqual([]);
    expect(parseEnvVars(' A_KEY, B_KEY  C_KEY,,\nD ')).toEqual(['A_KEY', 'B_KEY', 'C_KEY', 'D']);
    expect(parseEnvVars('')).toEqual([]);
  });

  it('puts each refusal at the field the backend names, in its words', () => {
    const shell = 'no shell syntax: the command and each argument are passed to the program as they are';
    expect(acpRefusal(shell, { error: shell, field: 'command' })).toEqual({
      field: 'command',
      text: 'No shell syntax: the command and each argument are passed to the program as they are',
    });
    expect(acpRefusal(shell, { error: shell, field: 'args' }).field).toBe('args');
    expect(acpRefusal('name is required (at most 60 characters)', { field: 'name' }).field).toBe('name');
    expect(acpRefusal('key names are variable names', { field: 'envVars' })).toEqual({ field: 'envVars', text: 'Key names are variable names' });
    // No field, or one the form does not have: the words stand under the form.
    expect(acpRefusal('store the ACP agents: disk is full', { error: 'x' })).toEqual({ field: null, text: 'Store the ACP agents: disk is full' });
    expect(acpRefusal('odd', { field: 'toString' }).field).toBeNull();
    expect(acpRefusal('odd', null).field).toBeNull();
  });
  it('shows a command as one would type it', () => {
    expect(commandWords({ command: 'gemini', args: ['--acp'] })).toBe('gemini --acp');
    expect(commandWords({ command: '/opt/a', args: ['--name', 'two words', ''] })).toBe('/opt/a --name "two words" ""');
  });

  it('installs only what npm or pipx installs', () => {
    expect(canInstall({ installCommand: 'npm install -g @google/gemini-cli@0' })).toBe(true);
    expect(canInstall({ installCommand: "pipx install 'hermes-agent<1'" })).toBe(true);
    expect(canInstall({ installCommand: null })).toBe(false);
  });

  it('says how each signs in, and why one with its own login counts as ready', () => {
    expect(signInWords(makeAcpRuntime({ name: 'OpenCode', loginCommand: 'opencode auth login' }))).toEqual({
      text: 'Signs in with its own login:',
      command: 'opencode auth login',
      note: 'Clawboo cannot see that sign-in, so it counts OpenCode ready once installed.',
    });
    expect(signInWords(makeAcpRuntime())).toEqual({
      text: 'Signs in its own way, if it needs to.',
      command: null,
      note: 'Clawboo cannot see how, so it counts My agent ready while its program is here.',
    });
    expect(signInWords(makeAcpRuntime({ authKind: 'api-key', envVar: 'GEMINI_API_KEY' }))).toEqual({
      text: 'Signs in with an API key (GEMINI_API_KEY), pasted here once it is installed.',
      command: null,
      note: '',
    });
    expect(signInWords(makeAcpRuntime({ authKind: 'api-key', envVar: null, keys: [makeKey('google', { envVar: 'GEMINI_API_KEY' })] })).text).toMatch(
      /\(GEMINI_API_KEY\)/,
    );
    expect(signInWords(makeRuntime({ authKind: 'none' })).text).toBe('Needs no sign-in.');
  });

  it('names the keys an agent that signs in by itself is also given', () => {
    expect(passedKeysWords(makeAcpRuntime())).toBe('');
    expect(passedKeysWords(makeAcpRuntime({ acp: { command: 'x', args: [], envVars: ['A', 'B'], custom: false } }))).toBe(
      'It is also given A and B when set.',
    );
  });
});
