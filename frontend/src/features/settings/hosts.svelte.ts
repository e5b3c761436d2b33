// The hosts as the rest of the app names them: the agent dialog's "Runs on"
// choice, "on Build box" beside an agent and on a task's card and drawer.
// One list for the whole app (App provides it), read at every (re)connect of
// the lifecycle stream, when a page asks (the agent dialog opening), and
// whenever Settings → Hosts has read its own. An id the list does not have
// (a host added in another window since) makes one re-read before it is
// called removed.

import { getContext, setContext } from 'svelte';
import { describeError } from '../../lib/api/errors';
import type { Host, HostsApi } from '../../lib/api/hostsClient';
import type { LiveEvents } from '../../lib/live.svelte';
import { hostChoices, placeWords, type HostChoice } from './hostsView';

export class HostsStore {
  list = $state.raw<Host[]>([]);
  loaded = $state(false);
  /** Why the list cannot be read, in words; "" when fine. */
  error = $state('');

  private unsubscribe: (() => void)[] = [];
  private seq = 0;
  /** Ids not in the list that were asked for once already. */
  private readonly asked = new Set<string>();

  constructor(
    private readonly api: Pick<HostsApi, 'list'>,
    private readonly live: LiveEvents | null = null,
  ) {}

  start(): void {
    if (!this.live || this.unsubscribe.length) return;
    this.unsubscribe = [this.live.onOpen(() => void this.load())];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  async load(): Promise<void> {
    const mine = ++this.seq;
    try {
      const list = await this.api.list();
      if (mine === this.seq) this.set(list);
    } catch (err) {
      if (mine === this.seq) this.error = describeError(err);
    }
  }

  /** Puts a list read elsewhere (Settings → Hosts) in place; a read in flight then loses. */
  set(list: Host[]): void {
    this.seq++;
    this.list = list;
    this.loaded = true;
    this.error = '';
  }

  /** "" for this computer, "on Build box", or "on a removed host". */
  place(hostId: string | null | undefined): string {
    if (hostId && this.loaded && !this.asked.has(hostId) && !this.list.some((h) => h.id === hostId)) {
      this.asked.add(hostId);
      // Asked outside the reading effect (a read must not write state while it renders).
      queueMicrotask(() => void this.load());
    }
    return placeWords(hostId, this.list, this.loaded);
  }

  /** The "Runs on" choices, the current one kept. */
  choices(current: string | null): HostChoice[] {
    return hostChoices(this.list, current, this.loaded);
  }
}

const KEY = Symbol('hosts');

/** Makes the store reachable from the agents' and the board's components below the caller (App). */
export function provideHosts(store: HostsStore): void {
  setContext(KEY, store);
}

/** The app's hosts store, or null outside the app (a component test, say). */
export function useHosts(): HostsStore | null {
  return getContext<HostsStore | undefined>(KEY) ?? null;
}
