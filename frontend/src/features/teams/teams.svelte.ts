// The teams list. Loaded at start and on every reconnect of the lifecycle
// stream (a team seeded by the welcome, or changed in another window, shows
// up then); mutations put their answer in place.

import { describeError, type ApiClient } from '../../lib/api/client';
import type { NewTeamRequest, Team, TeamPatch } from '../../lib/api/teamTypes';
import type { LiveEvents } from '../../lib/live.svelte';

export class TeamsStore {
  list = $state.raw<Team[]>([]);
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
    this.unsubscribe = [this.live.onOpen(() => void this.load())];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  async load(): Promise<void> {
    const mine = ++this.seq;
    try {
      const list = await this.api.teams.list();
      if (mine !== this.seq) return; // a newer read (or a mutation) won
      this.list = list;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (mine === this.seq) this.error = describeError(err);
    }
  }

  get(id: string): Team | undefined {
    return this.list.find((t) => t.id === id);
  }

  async create(req: NewTeamRequest): Promise<Team> {
    return this.put(await this.api.teams.create(req));
  }

  async patch(id: string, patch: TeamPatch): Promise<Team> {
    return this.put(await this.api.teams.patch(id, patch));
  }

  async addMember(id: string, agentId: string): Promise<Team> {
    return this.put(await this.api.teams.addMember(id, agentId));
  }

  async removeMember(id: string, agentId: string): Promise<Team> {
    return this.put(await this.api.teams.removeMember(id, agentId));
  }

  async remove(id: string): Promise<void> {
    await this.api.teams.remove(id);
    this.seq++;
    this.list = this.list.filter((t) => t.id !== id);
  }

  /** Puts a fresh team in place (or appends it). */
  put(t: Team): Team {
    this.seq++;
    this.list = this.list.some((x) => x.id === t.id) ? this.list.map((x) => (x.id === t.id ? t : x)) : [...this.list, t];
    return t;
  }
}
