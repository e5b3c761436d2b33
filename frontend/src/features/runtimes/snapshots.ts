// The runtimes list arrives two ways: GET /api/runtimes (on load, after an
// action, on every stream reconnect) and "runtimes" events on the lifecycle
// stream. The stream sends every change, in order, so its latest event is
// always current; a GET whose answer arrives after an event may have been
// taken before that event's change. This rule keeps the list from stepping
// back: a GET applies only if no event was applied while it was in flight.

export class SnapshotOrder {
  private events = 0;

  /** Call as a GET is sent; pass the token to fresh() when it answers. */
  begin(): number {
    return this.events;
  }

  /** Call when an event's snapshot is applied. */
  event(): void {
    this.events++;
  }

  /** Whether the GET begun with token may still be applied. */
  fresh(token: number): boolean {
    return token === this.events;
  }
}
