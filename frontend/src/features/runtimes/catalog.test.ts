import { describe, expect, it } from 'vitest';
import type { RuntimeDescriptor } from '../../lib/api/types';
import { catalogToAdd, connectionLabel } from './catalog';

const d = (id: string): RuntimeDescriptor => ({
  id,
  name: id,
  builtIn: false,
  authKind: 'none',
  envVar: null,
  altEnvVars: [],
  installCommand: null,
  docsUrl: '',
  healthBin: null,
});

describe('catalogToAdd', () => {
  it('drops runtimes already runnable and always the mock', () => {
    const got = catalogToAdd([{ id: 'codex' }], [d('claude-code'), d('codex'), d('clawboo-mock'), d('hermes')]);
    expect(got.map((x) => x.id)).toEqual(['claude-code', 'hermes']);
  });

  it('labels connection states in words', () => {
    expect(connectionLabel('needs-auth')).toBe('needs a key');
    expect(connectionLabel('ready')).toBe('ready');
  });
});
