import { describe, expect, it } from 'vitest';
import { rememberProvider, startingProvider } from './lastProvider';

describe('the provider a connect form starts on', () => {
  it('is the one last connected, while it is still offered', () => {
    const offered = [{ id: 'anthropic' }, { id: 'openrouter' }];
    expect(startingProvider('clawboo-native', offered)).toBeUndefined();
    rememberProvider('clawboo-native', 'openrouter');
    expect(startingProvider('clawboo-native', offered)).toBe('openrouter');
    expect(startingProvider('clawboo-native', [{ id: 'anthropic' }])).toBeUndefined();
    expect(startingProvider('hermes', offered)).toBeUndefined();
  });
});
