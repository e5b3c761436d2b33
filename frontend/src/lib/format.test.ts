import { describe, expect, it } from 'vitest';
import { bytes, clockTime, count, duration, editableSize, parseSize, relativeTime, shortId, usd } from './format';

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

describe('sizes', () => {
  it('bytes', () => {
    expect(bytes(87)).toBe('87 B');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(bytes(524_288_000)).toBe('500 MB');
    expect(bytes(1.2 * 1024 ** 3)).toBe('1.2 GB');
  });

  it('editableSize picks GB for whole tenths of a GB, else MB', () => {
    expect(editableSize(0)).toEqual({ value: '', unit: 'GB' });
    expect(editableSize(10 * 1024 ** 3)).toEqual({ value: '10', unit: 'GB' });
    expect(editableSize(1.5 * 1024 ** 3)).toEqual({ value: '1.5', unit: 'GB' });
    expect(editableSize(524_288_000)).toEqual({ value: '500', unit: 'MB' });
    expect(editableSize(1_000_000)).toEqual({ value: '0.95', unit: 'MB' });
  });

  it('parseSize reads a number in the unit, or with its own unit', () => {
    expect(parseSize('500', 'MB')).toEqual({ bytes: 524_288_000 });
    expect(parseSize(' 1.5 ', 'GB')).toEqual({ bytes: 1_610_612_736 });
    expect(parseSize('2 GB', 'MB')).toEqual({ bytes: 2 * 1024 ** 3 });
    expect(parseSize('300mib', 'GB')).toEqual({ bytes: 300 * 1024 ** 2 });
    expect(parseSize('', 'GB')).toEqual({ bytes: 0 });
    expect(parseSize('0', 'GB')).toEqual({ bytes: 0 });
  });

  it('parseSize says in words what is wrong', () => {
    expect(parseSize('lots', 'MB')).toEqual({ error: '“lots” is not a size: type a number, like 500, in MB, or leave it empty for none.' });
    expect(parseSize('-5', 'GB')).toMatchObject({ error: expect.stringMatching(/cannot be negative/) });
    expect(parseSize('5 b', 'GB')).toMatchObject({ error: expect.stringMatching(/is not a size/) });
    expect(parseSize('9'.repeat(20), 'GB')).toMatchObject({ error: expect.stringMatching(/too large/) });
  });

  it('clockTime shows the time today, the date otherwise', () => {
    const at = new Date(2026, 11, 2, 14, 2).getTime();
    expect(clockTime(at, new Date(2026, 11, 2, 18, 0).getTime())).toBe('14:02');
    expect(clockTime(at, new Date(2026, 11, 3, 9, 0).getTime())).toBe('2026-12-02 14:02');
  });
});
