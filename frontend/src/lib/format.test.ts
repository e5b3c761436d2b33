import { describe, expect, it } from 'vitest';
import { count, duration, relativeTime, shortId, usd } from './format';

describe('format', () => {
  it('relativeTime', () => {
    const now = 1_000_000_000;
    expect(relativeTime(now - 1_000, now)).toBe('just now');
    expect(relativeTime(now - 42_000, now)).toBe('42s ago');
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5m ago');
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe('3h ago');
    expect(relativeTime(now - 2 * 86_400_000, now)).toBe('2d ago');
    expect(relativeTime(0, 40 * 86_400_000)).toBe('1970-01-01');
    expect(relativeTime(now + 10_000, now)).toBe('just now'); // clock skew
  });

  it('duration', () => {
    expect(duration(250)).toBe('250ms');
    expect(duration(12_345)).toBe('12.3s');
    expect(duration(245_000)).toBe('4m 05s');
    expect(duration(-5)).toBe('0ms');
  });

  it('usd', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(0.0042)).toBe('$0.0042');
    expect(usd(1.5)).toBe('$1.50');
    expect(usd(0.00001)).toBe('<$0.0001'); // a character estimate of a short run
  });

  it('count and shortId', () => {
    expect(count(1234567)).toBe('1,234,567');
    expect(shortId('01M8MANXQDJC4P8W7X64H1JYP9')).toBe('01M8…H1JYP9');
    expect(shortId('short')).toBe('short');
  });
});
