// One team's room, live: the history read page by page, then the room's
// stream from the last seq (Last-Event-ID: the stream resumes after it with
// no loss, and mergePosts drops any post seen twice). Deltas and turns feed
// the typing bubbles; turns and board events re-read mission control
// (debounced), which is also re-read every 10 s. The tasks posts are about
// are read once each (a few at a time) for their titles and whether they
// have a diff, and again when the stream says the task changed.

import { ApiError, describeError, type ApiClient, type FetchFn } from '../../lib/api/client';
import { teamStreamUrl } from '../../lib/api/teamClient';
import { decodePost, parseDelta, parseTeamBoard, parseTurn } from '../../lib/api/teamDecode';
import type { Mission, Post, Team } from '../../lib/api/teamTypes';
import { openSseStream, type SseStream } from '../../lib/sse/stream';
import type { SseMessage } from '../../lib/sse/parser';
import { applyDelta, applyPost, applyTurn, lastSeq, liveRuns, mergePosts, stopNoteStale, stoppedWords, taskIdsIn, type Bubble, type TaskInfo } from './room';

const PAGE = 500;
const TASK_READS_AT_ONCE = 4;
const MISSION_EVERY_MS = 10_000;
const MISSION_DEBOUNCE_MS = 300;

export class RoomStore {
  team = $state.raw<Team | null>(null);
  posts = $state.raw<readonly Post[]>([]);
  bubbles = $state.raw<readonly Bubble[]>([]);
  mission = $state.raw<Mission | null>(null);
  loaded = $state(false);
  /** The room's load or stream error, in words; "" when fine. */
  error = $state('');
  missionError = $state('');
  online = $state(false);
  /** The newest post that came over the stream (for the aria-live line); null before any. */
  latest = $state.raw<Post | null>(null);
  /** What the room knows of the tasks its posts are about, by id (a new map on each change). */
  tasks = $state.raw<ReadonlyMap<string, TaskInfo>>(new Map());

  /** The runs live in the room now (members' runs and typing turns): what Stop can stop. */
  get live(): ReadonlySet<string> {
    return liveRuns(this.mission, this.bubbles);
  }

  /** Task ids asked for or to ask for; queued ones wait for a free read. */
  private asked = new Set<string>();
  private queued: string[] = [];
  private reading = 0;

  private stream: SseStream | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private soon: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private ctl = new AbortController();
  private missionSeq = 0;

  constructor(
    private readonly api: ApiClient,
    readonly teamId: string,
    /** The stream's fetch (tests inject one); the global fetch by default. */
    private readonly streamFetch?: FetchFn,
  ) {}

  async start(): Promise<void> {
    const signal = this.ctl.signal;
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.loadMission(), MISSION_EVERY_MS);
    void this.loadMission();
    try {
      const [team] = await Promise.all([this.api.teams.get(this.teamId, signal), this.loadHistory(signal)]);
      if (signal.aborted) return;
      this.team = team;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      if (signal.aborted) return;
      this.error = describeError(err);
      clearInterval(this.timer);
      // An unknown team (4xx) stays unknown; anything else is tried again.
      if (!(err instanceof ApiError && err.status >= 400 && err.status < 500)) {
        this.retry = setTimeout(() => void this.start(), 3_000);
      }
      return;
    }
    this.openStream();
  }

  stop(): void {
    this.ctl.abort();
    this.stream?.close();
    this.stream = null;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    clearTimeout(this.retry);
  }

  /** Reads every post after the newest one held, page by page. */
  private async loadHistory(signal: AbortSignal): Promise<void> {
    for (;;) {
      const page = await this.api.teams.posts(this.teamId, lastSeq(this.posts), PAGE, signal);
      if (signal.aborted) return;
      this.posts = mergePosts(this.posts, page.posts);
      this.askTasks(page.posts);
      if (!page.more || page.posts.length === 0) return;
    }
  }

  private openStream(): void {
    this.stream = openSseStream({
      url: teamStreamUrl(this.teamId),
      lastEventId: String(lastSeq(this.posts)),
      onMessage: (m) => this.onMessage(m),
      onState: (s) => {
        this.online = s === 'open';
        if (s === 'open') this.error = '';
      },
      onOpen: ({ reconnect }) => {
        // Bubbles of turns that ended while the stream was down would stay forever.
        if (reconnect) this.bubbles = [];
        if (reconnect) this.missionSoon();
      },
      onFatal: (err) => {
        this.error = describeError(err);
      },
      maxDelayMs: 10_000,
      ...(this.streamFetch ? { fetch: this.streamFetch } : {}),
    });
  }

  /** Handles one message of the room's stream. */
  onMessage(m: SseMessage): void {
    switch (m.event) {
      case 'post': {
        const p = decodePost(JSON.parse(m.data));
        this.addPosts([p]);
        if (this.posts[this.posts.length - 1] === p) this.latest = p;
        break;
      }
      case 'delta': {
        const d = parseDelta(m.data);
        if (d) this.bubbles = applyDelta(this.bubbles, d);
        break;
      }
      case 'turn': {
        const t = parseTurn(m.data);
        if (t) this.bubbles = applyTurn(this.bubbles, t);
        this.missionSoon();
        break;
      }
      case 'board': {
        const b = parseTeamBoard(m.data);
        if (b) {
          this.missionSoon();
          // A task a post links to changed (a title, a worktree made or merged): read it again.
          if (this.asked.has(b.taskId)) this.readTask(b.taskId);
        }
        break;
      }
    }
  }

  /** Puts committed posts in place (the POST's answer, the stream's): each once, by seq. */
  addPosts(ps: readonly Post[]): void {
    const next = mergePosts(this.posts, ps);
    if (next === this.posts) return;
    this.posts = next;
    this.askTasks(ps);
    let b = this.bubbles;
    for (const p of ps) b = applyPost(b, p);
    this.bubbles = b;
  }

  /** Queues a read of each task these posts are about that the room has not asked for. */
  private askTasks(ps: readonly Post[]): void {
    for (const p of ps) {
      for (const id of p.taskId ? [p.taskId, ...taskIdsIn(p)] : taskIdsIn(p)) {
        if (this.asked.has(id)) continue;
        this.asked.add(id);
        this.queued.push(id);
      }
    }
    this.pumpTasks();
  }

  private readTask(id: string): void {
    if (!this.queued.includes(id)) this.queued.push(id);
    this.pumpTasks();
  }

  private pumpTasks(): void {
    while (this.reading < TASK_READS_AT_ONCE && this.queued.length && !this.ctl.signal.aborted) {
      const id = this.queued.shift()!;
      this.reading++;
      this.api
        .getTask(id, this.ctl.signal)
        .then(
          (d) => {
            const next = new Map(this.tasks);
            next.set(id, { title: d.task.title, status: d.task.status, hasDiff: !!d.worktree && d.worktree.status !== 'archived' });
            this.tasks = next;
          },
          () => {
            // Unknown or unreadable: the link stays "Open the task" (the drawer says why).
          },
        )
        .finally(() => {
          this.reading--;
          this.pumpTasks();
        });
    }
  }

  missionSoon(): void {
    clearTimeout(this.soon);
    this.soon = setTimeout(() => void this.loadMission(), MISSION_DEBOUNCE_MS);
  }

  async loadMission(): Promise<void> {
    const mine = ++this.missionSeq;
    try {
      const m = await this.api.teams.mission(this.teamId, this.ctl.signal);
      if (mine !== this.missionSeq) return;
      this.mission = m;
      this.team = m.team;
      this.missionError = '';
    } catch (err) {
      if (mine === this.missionSeq && !this.ctl.signal.aborted) this.missionError = describeError(err);
    }
  }
}

/**
 * A stop's answer ("Stopped 1 run.") as a page shows it: set with the runs
 * live when it answered, and cleared by the room's live state (stopNoteStale),
 * checked whenever that state or the clock moves.
 */
export class StopNote {
  text = $state('');
  private at = 0;
  private liveAtStop: ReadonlySet<string> = new Set();

  set(n: number, liveNow: ReadonlySet<string>, now = Date.now()): void {
    this.text = stoppedWords(n);
    this.at = now;
    this.liveAtStop = liveNow;
  }

  clear(): void {
    this.text = '';
  }

  check(liveNow: ReadonlySet<string>, now: number): void {
    if (this.text && stopNoteStale(this.liveAtStop, liveNow, now - this.at)) this.text = '';
  }
}
