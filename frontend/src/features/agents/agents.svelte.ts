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

  private unsubscribe: (() => void)[] = [];
  private seq = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly live: LiveEvents | null = null,
  ) {}

  start(): void {
    if (!this.live || this.unsubscribe.length) return;
    this.unsubscribe = [this.live.onOpen(() => void this.load()), this.live.on('runtimes', () => void this.load())];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  async load(): Promise<void> {
    const mine = ++this.seq;
    try {
      const list = await this.api.listAgents();
      if (mine !== this.seq) return; // a newer read (or a mutation) won
      this.list = list;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (mine === this.seq) this.error = describeError(err);
    }
  }

  get(id: string): Agent | undefined {
    return this.list.find((a) => a.id === id);
  }

  async create(input: AgentInput): Promise<Agent> {
    const a = await this.api.createAgent(input);
    this.put(a);
    return a;
  }

  async update(id: string, patch: AgentInput): Promise<Agent> {
    const a = await this.api.patchAgent(id, patch);
    this.put(a);
    return a;
  }

  async remove(id: string): Promise<void> {
    await this.api.deleteAgent(id);
    this.seq++;
    this.list = this.list.filter((a) => a.id !== id);
  }

  /** Puts a fresh agent in place (or appends it: the list is oldest first). */
  put(a: Agent): void {
    this.seq++;
    this.list = this.list.some((x) => x.id === a.id) ? this.list.map((x) => (x.id === a.id ? a : x)) : [...this.list, a];
  }
}
