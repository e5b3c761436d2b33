// The phone page's state (issue 30): what waits for the person (approvals),
// the runs going, each team's latest room posts and the quota windows, as
// the phones' LAN listener answers them, kept live by its one stream
// (/m/api/events: "approval", "run", "post", "quota" events, each a nudge
// to read that list again; "revoked" last when the phone is removed). A
// 401 anywhere means this phone is not, or no longer, paired: the page says
// so and stops asking.

import { ApiError, describeError } from '../../lib/api/errors';
import { decodePhoneApprovalEvent, PHONE_EVENTS_URL, type PhoneApi, type PhoneApproval, type PhonePost, type PhoneQuota, type PhoneRun, type PhoneTeam } from '../../lib/api/phoneClient';
import { openSseStream, type SseStream } from '../../lib/sse/stream';

export type PhoneState = 'loading' | 'ready' | 'unpaired';

/** Something the person should notice: a sound and a vibration where allowed. */
export type Alert = () => void;

export class PhoneStore {
  state = $state<PhoneState>('loading');
  online = $state(false);
  /** What went wrong reading or answering, in words; "" while fine. */
  error = $state('');
  approvals = $state.raw<PhoneApproval[]>([]);
  runs = $state.raw<PhoneRun[]>([]);
  teams = $state.raw<PhoneTeam[]>([]);
  posts = $state.raw<Record<string, PhonePost[]>>({});
  quota = $state.raw<PhoneQuota | null>(null);
  /** Requests answered here, and runs stopped here, while in flight. */
  busy = $state.raw<ReadonlySet<string>>(new Set());

  private stream: SseStream | null = null;

  constructor(
    private readonly api: PhoneApi,
    private readonly alert: Alert = () => {},
  ) {}

  /** Reads everything, then follows the stream. */
  start(): void {
    if (this.stream) return;
    this.stream = openSseStream({
      url: PHONE_EVENTS_URL,
      onOpen: () => {
        this.online = true;
        void this.loadAll();
      },
      onState: (s) => (this.online = s === 'open'),
      onMessage: (m) => {
        if (m.event === 'revoked') {
          // Removed on the computer: nothing more answers this phone.
          this.state = 'unpaired';
          this.stop();
        } else if (m.event === 'approval') this.applyApproval(m.data);
        else if (m.event === 'run') void this.guard(() => this.readRuns());
        else if (m.event === 'quota') void this.guard(() => this.readQuota());
        else if (m.event === 'post') {
          const teamId = (JSON.parse(m.data) as { teamId?: unknown }).teamId;
          if (typeof teamId === 'string') void this.guard(() => this.readPosts(teamId));
        }
      },
      onFatal: (err) => this.failed(err),
    });
  }

  stop(): void {
    this.stream?.close();
    this.stream = null;
  }

  private failed(err: unknown): void {
    if (err instanceof ApiError && err.status === 401) {
      this.state = 'unpaired';
      this.stop();
      return;
    }
    this.error = describeError(err);
  }

  /** Runs fn (a list read again, say), saying its failure in words (401: not paired). */
  private async guard(fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      this.failed(err);
      return false;
    }
  }

  /** Reads every list (on each connect: the stream carries changes only). */
  async loadAll(): Promise<void> {
    const ok = await this.guard(async () => {
      await Promise.all([this.readApprovals(), this.readRuns(), this.readTeams(), this.readQuota()]);
    });
    if (ok && this.state === 'loading') this.state = 'ready';
    if (ok) this.error = '';
  }

  /** Rings for a request not on the page yet (never for what was there when it loaded). */
  private ringFor(ids: readonly string[]): void {
    if (this.state === 'ready' && ids.some((id) => !this.approvals.some((a) => a.id === id))) this.alert();
  }

  private async readApprovals(): Promise<void> {
    const list = await this.api.approvals();
    this.ringFor(list.map((a) => a.id));
    this.approvals = list;
  }

  /** A request asked shows at once (it carries its names); one answered anywhere leaves. */
  private applyApproval(data: string): void {
    let ev: ReturnType<typeof decodePhoneApprovalEvent>;
    try {
      ev = decodePhoneApprovalEvent(data);
    } catch {
      void this.guard(() => this.readApprovals()); // an event not understood: read the list
      return;
    }
    const rest = this.approvals.filter((a) => a.id !== ev.approval.id);
    if (ev.kind === 'requested' && ev.approval.status === 'pending') {
      this.ringFor([ev.approval.id]);
      this.approvals = [...rest, ev.approval];
    } else {
      this.approvals = rest;
    }
  }

  private async readRuns(): Promise<void> {
    this.runs = await this.api.runs();
  }

  private async readTeams(): Promise<void> {
    const teams = await this.api.teams();
    const posts = await Promise.all(teams.map((t) => this.api.posts(t.id)));
    this.teams = teams;
    this.posts = Object.fromEntries(teams.map((t, i) => [t.id, posts[i] ?? []]));
  }

  private async readPosts(teamId: string): Promise<void> {
    const posts = await this.api.posts(teamId);
    this.posts = { ...this.posts, [teamId]: posts };
  }

  private async readQuota(): Promise<void> {
    this.quota = await this.api.quota();
  }

  private mark(id: string, on: boolean): void {
    const next = new Set(this.busy);
    if (on) next.add(id);
    else next.delete(id);
    this.busy = next;
  }

  /** Allow or Deny; the list is read again whatever the answer (the first answer wins). */
  async answer(id: string, decision: 'allow' | 'deny'): Promise<string> {
    return this.act(id, () => this.api.resolve(id, decision), () => this.guard(() => this.readApprovals()));
  }

  /** A person's Stop: final. */
  async stopRun(id: string): Promise<string> {
    return this.act(id, () => this.api.stop(id), () => this.guard(() => this.readRuns()));
  }

  /** Writes to a team's room; "" when sent, else why not in words. */
  async write(teamId: string, message: string): Promise<string> {
    return this.act(teamId, () => this.api.write(teamId, message), () => this.guard(() => this.readPosts(teamId)));
  }

  private async act(id: string, fn: () => Promise<void>, after: () => Promise<unknown>): Promise<string> {
    this.mark(id, true);
    try {
      await fn();
      return '';
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        this.failed(err);
        return 'This phone is no longer paired.';
      }
      return describeError(err);
    } finally {
      this.mark(id, false);
      await after();
    }
  }
}
