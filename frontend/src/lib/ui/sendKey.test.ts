import { describe, expect, it } from 'vitest';
import { SEND_HINT, sendsOnEnter } from './sendKey';

const key = (over: Partial<KeyboardEvent>) => ({ key: 'Enter', shiftKey: false, isComposing: false, altKey: false, ctrlKey: false, metaKey: false, ...over });

describe('the send key', () => {
  it('sends on Enter alone; Shift+Enter is a new line', () => {
    expect(sendsOnEnter(key({}))).toBe(true);
    expect(sendsOnEnter(key({ shiftKey: true }))).toBe(false);
    expect(sendsOnEnter(key({ isComposing: true }))).toBe(false);
    expect(sendsOnEnter(key({ ctrlKey: true }))).toBe(false);
    expect(sendsOnEnter(key({ key: 'a' }))).toBe(false);
    expect(SEND_HINT).toBe('Enter sends, Shift+Enter for a new line.');
  });
});
