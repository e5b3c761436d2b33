import { describe, expect, it } from 'vitest';
import { SnapshotOrder } from './snapshots';

describe('SnapshotOrder', () => {
  it('applies a read when no event came while it was in flight', () => {
    const o = new SnapshotOrder();
    const t = o.begin();
    expect(o.fresh(t)).toBe(true);
  });

  it('drops a read that an event overtook, so the list never steps back', () => {
    const o = new SnapshotOrder();
    const t = o.begin();
    o.event();
    expect(o.fresh(t)).toBe(false);
    expect(o.fresh(o.begin())).toBe(true);
  });
});
