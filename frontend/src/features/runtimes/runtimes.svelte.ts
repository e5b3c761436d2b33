// Every catalog runtime with its live state, where keys are kept, and the
// installs running from this page. Loaded at start, re-read on every
// reconnect of the lifecycle stream, and replaced by each "runtimes" event,
// so a card changes by itself when a CLI appears or a login lands. The run
// form reads `runnable` from here; pages that speak of a runtime ask
// `setUp` (OpenClaw's from its status, read with the list).

import { describeError, type ApiClient } from '../../lib/api/client';
import { decodeRuntimes } from '../../lib/api/decode';
import type { RuntimeEntry, RuntimesResponse, VaultInfo } from '../../lib/api/types';
import type { LiveEvents } from '../../lib/live.svelte';
import { runnable as canRunTasks } from './catalog';
import { entrySetUp, OPENCLAW_ID, openClawSetUp } from './setUp';
import { InstallSession } from './installSession.svelte';
import { SnapshotOrder } from './snapshots';

export class RuntimesStore {
  list = $state.raw<RuntimeEntry[]>([]);
  vault = $state.raw<VaultInfo | null>(null);
  loaded = $state(false);
  loading = $state(false);
  error = $state('');
  /** Installs started from this page, by runtime id (finished ones stay for their log). */
  installs = $state.raw<ReadonlyMap<string, InstallSession>>(new Map());
  /** An install is running from this page (leaving the page would stop it). */
  readonly installing = $derived([...this.installs.values()].some((s) => s.running));
  /** What the run form offers: runtimes this build can run tasks on. */
  readonly runnable = $derived(canRunTasks(this.list));
  /** OpenClaw was given a Gateway here (it is not in the catalog list). */
  openclaw = $state(false);

  private readonly order = new SnapshotOrder();
  private unsubscribe: (() => void)[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents | null = null,
  ) {}

  start(): void {
    if (!this.live || this.unsubscribe.length) return;
    this.unsubscribe = [
      this.live.onOpen(() => void this.load()),
      this.live.on('runtimes', (data) => {
        const res = decodeRuntimes(JSON.parse(data));
        this.order.event();
        this.apply(res);
      }),
    ];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    for (const s of this.installs.values()) s.stop();
  }

  async load(): Promise<void> {
    this.loading = true;
    void this.api.openclaw.status().then(
      (s) => (this.openclaw = openClawSetUp(s)),
      () => {}, // an older server, or none: OpenClaw counts as not set up
    );
    const token = this.order.begin();
    try {
      const res = await this.api.runtimes();
      if (this.order.fresh(token)) this.apply(res);
      this.error = '';
    } catch (err) {
      this.error = describeError(err);
    } finally {
      this.loading = false;
    }
  }

  /** Puts one fresh entry (a re-check's answer) in place. */
  replace(entry: RuntimeEntry): void {
    this.list = this.list.map((r) => (r.id === entry.id ? entry : r));
  }

  /**
   * Lists an entry the page just made (an ACP agent added), or puts it in
   * place. It counts as a fresh snapshot: a GET sent before the add, which
   * may not know the agent, is not applied over it.
   */
  insert(entry: RuntimeEntry): void {
    this.order.event();
    this.list = this.list.some((r) => r.id === entry.id) ? this.list.map((r) => (r.id === entry.id ? entry : r)) : [...this.list, entry];
  }

  /** Unlists a runtime the page just removed (an ACP agent); fresh like insert. */
  drop(id: string): void {
    this.order.event();
    this.list = this.list.filter((r) => r.id !== id);
  }

  entry(id: string): RuntimeEntry | undefined {
    return this.list.find((r) => r.id === id);
  }

  /** Whether the person set this runtime up here (installed; OpenClaw: given a Gateway). */
  setUp = (id: string): boolean => (id === OPENCLAW_ID ? this.openclaw : entrySetUp(this.entry(id)));

  /** Starts installing a runtime unless this page already is; the list is re-read when it ends. */
  install(id: string): void {
    if (this.installs.get(id)?.running) return;
    const session = new InstallSession(id);
    this.installs = new Map(this.installs).set(id, session);
    void session.run(this.api).then(() => this.load());
  }

  stopInstall(id: string): void {
    this.installs.get(id)?.stop();
  }

  /** Forgets a finished install (its log and outcome). */
  dismissInstall(id: string): void {
    const s = this.installs.get(id);
    if (!s || s.running) return;
    const next = new Map(this.installs);
    next.delete(id);
    this.installs = next;
  }

  private apply(res: RuntimesResponse): void {
    this.list = res.runtimes;
    this.vault = res.vault;
    this.loaded = true;
    this.error = '';
  }
}
