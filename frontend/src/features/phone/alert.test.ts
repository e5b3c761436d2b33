import { describe, expect, it } from 'vitest';
import { guessName } from './alert';

describe("a phone's first name", () => {
  it("comes from the browser's words, for the person to correct", () => {
    expect(guessName('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36')).toBe('Pixel 8');
    expect(guessName('Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A.220624.014) AppleWebKit/537.36')).toBe('SM-S911B');
    // Chrome's reduced user agent names no model.
    expect(guessName('Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36')).toBe('Android phone');
    expect(guessName('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15')).toBe('iPhone');
    expect(guessName('curl/8')).toBe('My phone');
  });
});
