// The conflict radar as the board shows it: one store for the page, polled
// every few seconds while a card or a drawer is on screen (each holds it
// with retain() and lets go with the function it returns), so cards and
// the drawer read one answer. The backend caches its scan for a few
// seconds, so many viewers cost one scan.

import { radarApi, overlapsOf, type Overlap, type Radar, type RadarApi } from '../../lib/api/radarClient';

export const RADAR_POLL_MS = 4_000;

export class RadarStore {
  radar = $state.raw<Radar | null>(null);
  private holders = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;

  constructor(
    private readonly api: Pick<RadarApi, 'get'>,
    private readonly every = RADAR_POLL_MS,
  ) {}

  /** Starts polling while held; returns the release. */
  retain(): () => void {
    this.holders++;
    if (this.holders === 1) void this.poll();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      if (this.holders === 0) clearTimeout(this.timer);
    };
  }

  overlaps(taskId: string): Overlap[] {
    return overlapsOf(this.radar, taskId);
  }

  title(taskId: string): string {
    return this.radar?.titles[taskId] ?? taskId;
  }

  async poll(): Promise<void> {
    clearTimeout(this.timer);
    if (!this.busy) {
      this.busy = true;
      try {
        this.radar = await this.api.get();
      } catch {
        // Keep the last answer: the radar is advice, and the next poll retries.
      } finally {
        this.busy = false;
      }
    }
    if (this.holders > 0) this.timer = setTimeout(() => void this.poll(), this.every);
  }
}

export const radar = new RadarStore(radarApi);
