// The agents list. Loaded at start and on every reconnect of the lifecycle
// stream, and re-read when a 'runtimes' event arrives (a key connected or
// removed changes providerReady). Mutations put their answer in place.

import { describeError, type ApiClient } from '../../lib/api/client';
import type { Agent, AgentInput } from '../../lib/api/agentTypes';
import type { LiveEvents } from '../../lib/live.svelte';

export class AgentsStore {
  list = $state.raw<Agent[]>([]);
  loaded = $state(false);
  /** The last list error, in words; "" when fine. */
  error = $state('');
  /** The provider a new native agent starts on when set (GET /api/settings/default-native-provider). */
  defaultProvider = $state<string | null>(null);

  private unsubscribe: (() => void)[] = [];
  private seq = 0;
  private soon: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents | null = null,
  ) {}

  start(): void {
    if (!this.live || this.unsubscribe.length) return;
    this.unsubscribe = [this.live.onOpen(() => void this.load()), this.live.on('runtimes', () => this.loadSoon())];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearTimeout(this.soon);
  }

  /** One re-read for a burst of runtimes events (an install or a connect sends several). */
  private loadSoon(): void {
    clearTimeout(this.soon);
    this.soon = setTimeout(() => void this.load(), 150);
  }

  async load(): Promise<void> {
    const mine = ++this.seq;
    try {
      const [list, def] = await Promise.all([this.api.agents.list(), this.api.agents.defaultProvider().catch(() => this.defaultProvider)]);
      if (mine !== this.seq) return; // a newer read (or a mutation) won
      this.list = list;
      this.defaultProvider = def;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (mine === this.seq) this.error = describeError(err);
    }
  }

  get(id: string): Agent | undefined {
    return this.list.find((a) => a.id === id);
  }

  /** Records (or, with null, clears) the default native provider. */
  async setDefaultProvider(provider: string | null): Promise<void> {
    this.defaultProvider = await this.api.agents.setDefaultProvider(provider);
  }

  async create(input: AgentInput): Promise<Agent> {
    const a = await this.api.agents.create(input);
    this.put(a);
    return a;
  }

  async update(id: string, patch: AgentInput): Promise<Agent> {
    const a = await this.api.agents.patch(id, patch);
    this.put(a);
    return a;
  }

  async remove(id: string): Promise<void> {
    await this.api.agents.remove(id);
    this.seq++;
    this.list = this.list.filter((a) => a.id !== id);
  }

  /** Puts a fresh agent in place (or appends it: the list is oldest first). */
  put(a: Agent): void {
    this.seq++;
    this.list = this.list.some((x) => x.id === a.id) ? this.list.map((x) => (x.id === a.id ? a : x)) : [...this.list, a];
  }
}
