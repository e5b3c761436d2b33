import { describe, expect, it } from 'vitest';
import { decodeTask } from './boardDecode';
import { DecodeError } from './decode';
import { SECRET_NAME, SecretsApi, decodeSecretList } from './secretsClient';

describe('secrets client', () => {
  it('decodes names and the backend, and refuses a malformed answer', () => {
    expect(decodeSecretList({ secrets: [{ name: 'A_KEY' }, { name: 'B' }], backend: 'file' })).toEqual({ names: ['A_KEY', 'B'], backend: 'file' });
    expect(() => decodeSecretList({ secrets: [{}] })).toThrow(DecodeError);
    expect(() => decodeSecretList({})).toThrow(DecodeError);
  });

  it('sends values in and encodes names in the path', async () => {
    const calls: unknown[][] = [];
    const api = new SecretsApi(async (...args: unknown[]) => {
      calls.push(args);
      return args[0] === 'GET' ? { secrets: [], backend: 'keychain' } : null;
    });
    await api.set('STRIPE_KEY', 'v4lue');
    await api.remove('STRIPE_KEY');
    expect((await api.list()).backend).toBe('keychain');
    expect(calls.map((c) => [c[0], c[1], c[2]])).toEqual([
      ['PUT', '/api/secrets/STRIPE_KEY', { value: 'v4lue' }],
      ['DELETE', '/api/secrets/STRIPE_KEY', undefined],
      ['GET', '/api/secrets', undefined],
    ]);
  });

  it('knows an environment variable name', () => {
    expect(SECRET_NAME.test('STRIPE_TEST_KEY')).toBe(true);
    for (const bad of ['lower', '1ABC', 'A-B', '', 'A'.repeat(59)]) expect(SECRET_NAME.test(bad)).toBe(false);
  });

  it('gives a task from an older server no secrets', () => {
    const t = { id: 't', status: 'todo', updatedAt: 1, dependsOn: [] };
    expect(decodeTask(t).secrets).toEqual([]);
    expect(decodeTask({ ...t, secrets: ['A', 3] }).secrets).toEqual(['A']);
  });
});
