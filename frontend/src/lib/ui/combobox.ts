// The keyboard of a searchable list (the Combobox component), as a pure
// step: given the key, whether the list is open, how many options it shows
// and which is active, what happens. Arrows move (wrapping), Home/End jump,
// Enter picks the active option (or the first, unless the caller lets Enter
// through to its form), Escape closes an open list (and only then is the key
// taken: a closed list leaves Escape to the dialog or drawer around it).

export interface ComboState {
  open: boolean;
  /** The active option's index, -1 for none. */
  active: number;
}

export type ComboAction =
  | { kind: 'move'; state: ComboState }
  | { kind: 'pick'; index: number }
  | { kind: 'close' }
  /** Not the list's key: let the browser (or the form) have it. */
  | { kind: 'pass' };

export interface ComboKeyOptions {
  /** Enter with no active option submits the form around (the caller picks then). */
  enterSubmits?: boolean;
}

export function comboKey(key: string, s: ComboState, count: number, opts: ComboKeyOptions = {}): ComboAction {
  switch (key) {
    case 'ArrowDown':
      if (count === 0) return { kind: 'move', state: { open: true, active: -1 } };
      return { kind: 'move', state: { open: true, active: !s.open || s.active < 0 ? 0 : (s.active + 1) % count } };
    case 'ArrowUp':
      if (count === 0) return { kind: 'move', state: { open: true, active: -1 } };
      return { kind: 'move', state: { open: true, active: !s.open || s.active <= 0 ? count - 1 : s.active - 1 } };
    case 'Home':
    case 'End':
      if (!s.open || count === 0) return { kind: 'pass' };
      return { kind: 'move', state: { open: true, active: key === 'Home' ? 0 : count - 1 } };
    case 'Enter':
      if (s.open && s.active >= 0 && s.active < count) return { kind: 'pick', index: s.active };
      if (opts.enterSubmits) return { kind: 'pass' };
      return count > 0 ? { kind: 'pick', index: 0 } : { kind: 'close' };
    case 'Escape':
      return s.open ? { kind: 'close' } : { kind: 'pass' };
    default:
      return { kind: 'pass' };
  }
}

/** Whether `q` (trimmed, any case) is found in any of the texts; an empty query matches all. */
export function textMatches(q: string, ...texts: readonly (string | null | undefined)[]): boolean {
  const n = q.trim().toLowerCase();
  if (!n) return true;
  return texts.some((t) => (t ?? '').toLowerCase().includes(n));
}
