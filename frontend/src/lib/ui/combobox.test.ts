import { describe, expect, it } from 'vitest';
import { comboKey, textMatches } from './combobox';

const closed = { open: false, active: -1 };
const at = (active: number) => ({ open: true, active });

describe('combobox keys', () => {
  it('opens on ArrowDown at the first option, and wraps', () => {
    expect(comboKey('ArrowDown', closed, 3)).toEqual({ kind: 'move', state: at(0) });
    expect(comboKey('ArrowDown', at(0), 3)).toEqual({ kind: 'move', state: at(1) });
    expect(comboKey('ArrowDown', at(2), 3)).toEqual({ kind: 'move', state: at(0) });
  });

  it('opens on ArrowUp at the last option, and wraps', () => {
    expect(comboKey('ArrowUp', closed, 3)).toEqual({ kind: 'move', state: at(2) });
    expect(comboKey('ArrowUp', at(0), 3)).toEqual({ kind: 'move', state: at(2) });
    expect(comboKey('ArrowUp', at(2), 3)).toEqual({ kind: 'move', state: at(1) });
  });

  it('has no active option in an empty list', () => {
    expect(comboKey('ArrowDown', closed, 0)).toEqual({ kind: 'move', state: at(-1) });
    expect(comboKey('ArrowUp', at(-1), 0)).toEqual({ kind: 'move', state: at(-1) });
  });

  it('jumps with Home and End only while open', () => {
    expect(comboKey('Home', at(2), 4)).toEqual({ kind: 'move', state: at(0) });
    expect(comboKey('End', at(0), 4)).toEqual({ kind: 'move', state: at(3) });
    expect(comboKey('Home', closed, 4)).toEqual({ kind: 'pass' });
  });

  it('picks the active option on Enter, else the first', () => {
    expect(comboKey('Enter', at(1), 3)).toEqual({ kind: 'pick', index: 1 });
    expect(comboKey('Enter', closed, 3)).toEqual({ kind: 'pick', index: 0 });
    expect(comboKey('Enter', at(-1), 0)).toEqual({ kind: 'close' });
  });

  it('lets Enter through to the form when asked, unless an option is active', () => {
    expect(comboKey('Enter', at(-1), 3, { enterSubmits: true })).toEqual({ kind: 'pass' });
    expect(comboKey('Enter', closed, 3, { enterSubmits: true })).toEqual({ kind: 'pass' });
    expect(comboKey('Enter', at(2), 3, { enterSubmits: true })).toEqual({ kind: 'pick', index: 2 });
  });

  it('takes Escape only to close an open list', () => {
    expect(comboKey('Escape', at(0), 3)).toEqual({ kind: 'close' });
    expect(comboKey('Escape', closed, 3)).toEqual({ kind: 'pass' });
  });

  it('leaves every other key to the input', () => {
    for (const k of ['a', 'Tab', 'Backspace', 'ArrowLeft']) expect(comboKey(k, at(0), 3)).toEqual({ kind: 'pass' });
  });
});

describe('combobox text match', () => {
  it('matches any text, any case, trimmed; empty matches all', () => {
    expect(textMatches(' CLAU ', 'Ada', 'claude-code')).toBe(true);
    expect(textMatches('ada', 'Ada', 'mock')).toBe(true);
    expect(textMatches('zed', 'Ada', 'mock', null)).toBe(false);
    expect(textMatches('', 'x')).toBe(true);
  });
});
