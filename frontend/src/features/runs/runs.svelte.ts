// The recent-runs list, kept live by the lifecycle stream (/api/events).
// The stream carries no ids, so every (re)connect re-reads the first page;
// the merge rule in runList.ts keeps late or duplicate records harmless.

import { describeError, type ApiClient } from '../../lib/api/client';
import { decodeRun } from '../../lib/api/decode';
import type { Run } from '../../lib/api/types';
import type { LiveEvents } from '../../lib/live.svelte';
import { appendPage, belongsInList, mergeRuns, type RunList } from './runList';

const PAGE = 50;

export class RunsStore {
  list = $state.raw<RunList>({ runs: [], nextCursor: null });
  /** The first page has arrived at least once. */
  loaded = $state(false);
  loadingMore = $state(false);
  /** The last list error, in words; "" when fine. */
  error = $state('');

  private unsubscribe: (() => void)[] = [];
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents,
  ) {}

  /** Follows the lifecycle stream: a re-read on every (re)connect, then each run as it changes. */
  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.onOpen(() => void this.refresh()),
      // A malformed record throws here; LiveEvents drops it and the next
      // reconnect's refresh corrects the list.
      this.live.on('run', (data) => this.merge([decodeRun(JSON.parse(data))])),
    ];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.retry);
  }

  /** Merges records from the stream or a single fetch; see belongsInList. */
  merge(runs: readonly Run[]): void {
    const fit = runs.filter((r) => belongsInList(this.list, r));
    if (fit.length > 0) this.list = mergeRuns(this.list, fit);
  }

  get(id: string): Run | null {
    return this.list.runs.find((r) => r.id === id) ?? null;
  }

  /** Re-reads the newest page and merges it in. */
  async refresh(): Promise<void> {
    try {
      const page = await this.api.listRuns({ limit: PAGE });
      // The first load sets the cursor; later refreshes keep older pages
      // the user loaded (their cursor still points past them).
      const base = this.loaded ? this.list : { runs: this.list.runs, nextCursor: page.nextCursor };
      this.list = mergeRuns(base, page.runs);
      this.loaded = true;
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
      // The stream may stay up while the list read failed: try again.
      clearTimeout(this.retry);
      if (this.unsubscribe.length) this.retry = setTimeout(() => void this.refresh(), 3_000);
    }
  }

  async loadMore(): Promise<void> {
    const cursor = this.list.nextCursor;
    if (!cursor || this.loadingMore) return;
    this.loadingMore = true;
    try {
      const page = await this.api.listRuns({ limit: PAGE, before: cursor });
      this.list = appendPage(this.list, page);
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
    } finally {
      this.loadingMore = false;
    }
  }
}
