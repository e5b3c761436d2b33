// Boundary checks for the teams routes, in the spirit of decode.ts: the
// fields a view relies on are checked, optional ones get their defaults.

import { DecodeError, isObject } from './decode';
import type {
  DeltaEvent,
  Member,
  Mission,
  MissionMember,
  MemberState,
  OnboardingState,
  Post,
  PostKind,
  PostsPage,
  RecentTask,
  SeedAnswer,
  Team,
  TeamBoardEvent,
  TurnEvent,
} from './teamTypes';

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new DecodeError(`unexpected response from the backend: ${what}`);
}

const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function decodeMember(v: unknown): Member {
  need(isObject(v) && typeof v.agentId === 'string', 'team member without an agentId');
  return {
    agentId: v.agentId,
    name: str(v.name, v.agentId),
    runtime: str(v.runtime),
    role: v.role === 'leader' ? 'leader' : 'member',
    hostId: strOrNull(v.hostId),
  };
}

export function decodeTeam(v: unknown): Team {
  need(isObject(v) && typeof v.id === 'string' && v.id !== '', 'team without an id');
  return {
    id: v.id,
    name: str(v.name, v.id),
    leaderAgentId: strOrNull(v.leaderAgentId),
    brief: str(v.brief),
    repoPath: strOrNull(v.repoPath),
    // On unless the server says off (older servers have no critic).
    critic: v.critic !== false,
    fallbackRuntime: strOrNull(v.fallbackRuntime),
    hostId: strOrNull(v.hostId),
    createdAt: num(v.createdAt),
    updatedAt: num(v.updatedAt),
    members: list(v.members).map(decodeMember),
  };
}

export function decodeTeams(v: unknown): Team[] {
  need(isObject(v) && (Array.isArray(v.teams) || v.teams === null), 'teams is not {teams: [...]}');
  return list(v.teams).map(decodeTeam);
}

/** {team} from create, get, patch and the member routes. */
export function decodeTeamAnswer(v: unknown): Team {
  need(isObject(v), 'team answer is not an object');
  return decodeTeam(v.team);
}

const KINDS: readonly PostKind[] = ['user', 'peer', 'delegate', 'system', 'stop', 'merge'];

export function decodePost(v: unknown): Post {
  need(isObject(v) && typeof v.seq === 'number' && Number.isFinite(v.seq), 'post without a seq');
  const author = str(v.authorAgentId);
  const kind = KINDS.includes(v.kind as PostKind) ? (v.kind as PostKind) : author === 'user' ? 'user' : author === 'system' || typeof v.kind === 'string' ? 'system' : 'peer';
  return {
    seq: v.seq,
    teamId: str(v.teamId),
    authorAgentId: author,
    authorName: str(v.authorName, author),
    kind,
    body: str(v.body),
    assignee: strOrNull(v.assignee),
    assigneeName: strOrNull(v.assigneeName),
    taskId: strOrNull(v.taskId),
    createdAt: num(v.createdAt),
  };
}

export function decodePostsPage(v: unknown): PostsPage {
  need(isObject(v) && (Array.isArray(v.posts) || v.posts === null), 'chat is not {posts: [...]}');
  return { posts: list(v.posts).map(decodePost), more: v.more === true };
}

export function decodeChatAnswer(v: unknown): { post: Post | null; runId: string } {
  need(isObject(v), 'chat answer is not an object');
  return { post: v.post ? decodePost(v.post) : null, runId: str(v.runId) };
}

export function decodeStopped(v: unknown): number {
  need(isObject(v), 'stop answer is not an object');
  return num(v.stopped);
}

const STATES: readonly MemberState[] = ['idle', 'working', 'waiting_approval', 'over_budget', 'not_ready'];

function decodeMissionMember(v: unknown): MissionMember {
  const m = decodeMember(v);
  const o = v as Record<string, unknown>;
  const out: MissionMember = { ...m, state: STATES.includes(o.state as MemberState) ? (o.state as MemberState) : 'idle' };
  if (typeof o.taskId === 'string' && o.taskId) out.taskId = o.taskId;
  if (typeof o.taskTitle === 'string' && o.taskTitle) out.taskTitle = o.taskTitle;
  if (typeof o.runId === 'string' && o.runId) out.runId = o.runId;
  if (typeof o.latestLine === 'string' && o.latestLine) out.latestLine = o.latestLine;
  if (typeof o.why === 'string' && o.why) out.why = o.why;
  return out;
}

function decodeRecentTask(v: unknown): RecentTask {
  need(isObject(v) && typeof v.id === 'string', 'recent task without an id');
  return {
    id: v.id,
    title: str(v.title, v.id),
    status: str(v.status),
    kind: str(v.kind),
    assigneeAgentId: strOrNull(v.assigneeAgentId),
    updatedAt: num(v.updatedAt),
  };
}

export function decodeMission(v: unknown): Mission {
  need(isObject(v), 'mission is not an object');
  const tasks: Record<string, number> = {};
  if (isObject(v.tasks)) for (const [k, n] of Object.entries(v.tasks)) if (typeof n === 'number') tasks[k] = n;
  return {
    team: decodeTeam(v.team),
    members: list(v.members).map(decodeMissionMember),
    costTodayUsd: num(v.costTodayUsd),
    tasks,
    recentTasks: list(v.recentTasks).map(decodeRecentTask),
  };
}

export function decodeOnboardingState(v: unknown): OnboardingState {
  need(isObject(v) && typeof v.needed === 'boolean', 'onboarding state without needed');
  return {
    needed: v.needed,
    teams: num(v.teams),
    providers: list(v.providers)
      .filter(isObject)
      .filter((p) => typeof p.id === 'string')
      .map((p) => ({
        id: p.id as string,
        name: str(p.name, p.id as string),
        connected: p.connected === true,
        defaultModel: str(p.defaultModel),
        keyless: p.keyless === true,
      })),
    specialists: list(v.specialists)
      .filter(isObject)
      .filter((s) => typeof s.runtime === 'string')
      .map((s) => ({ runtime: s.runtime as string, name: str(s.name, s.runtime as string), ready: s.ready === true })),
    demo: v.demo === true,
  };
}

export function decodeSeedAnswer(v: unknown): SeedAnswer {
  need(isObject(v), 'seed answer is not an object');
  return { team: decodeTeam(v.team), suggestedMessage: str(v.suggestedMessage) };
}

// ---- the room's stream events (JSON data of `event: <name>`) ----

export function parseDelta(data: string): DeltaEvent | null {
  const v: unknown = JSON.parse(data);
  if (!isObject(v) || typeof v.runId !== 'string' || typeof v.text !== 'string') return null;
  return { runId: v.runId, agentId: str(v.agentId), text: v.text };
}

export function parseTurn(data: string): TurnEvent | null {
  const v: unknown = JSON.parse(data);
  if (!isObject(v) || typeof v.runId !== 'string') return null;
  const ev: TurnEvent = { runId: v.runId, agentId: str(v.agentId), status: v.status === 'ended' ? 'ended' : 'running' };
  if (typeof v.reason === 'string' && v.reason) ev.reason = v.reason;
  return ev;
}

export function parseTeamBoard(data: string): TeamBoardEvent | null {
  const v: unknown = JSON.parse(data);
  if (!isObject(v) || typeof v.taskId !== 'string') return null;
  return { taskId: v.taskId, title: str(v.title), status: str(v.status), assigneeAgentId: strOrNull(v.assigneeAgentId) };
}
