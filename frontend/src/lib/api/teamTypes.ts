// Wire types of the teams, room, mission-control and first-run routes
// (docs/teams.md, backend/api/teams.go), spelled exactly as the JSON.
// Times are Unix milliseconds.

export type MemberRole = 'leader' | 'member';

export interface Member {
  agentId: string;
  name: string;
  runtime: string;
  role: MemberRole;
  /** The host the member runs on: its own placement, else the team's (null: this computer). */
  hostId?: string | null;
}

export interface Team {
  id: string;
  name: string;
  leaderAgentId: string | null;
  brief: string;
  repoPath: string | null;
  /** The critic reviews the team's auto-mode tasks when their change is risky (on unless turned off). */
  critic: boolean;
  /** Where the quota governor routes the team's work when a window is spent; null for none. */
  fallbackRuntime?: string | null;
  /** Where the team's members run unless one is placed on a host of its own (null: this computer). */
  hostId?: string | null;
  createdAt: number;
  updatedAt: number;
  members: Member[];
}

export interface NewTeamRequest {
  name: string;
  leaderAgentId?: string;
  brief?: string;
  repoPath?: string;
}

/** null clears the leader or the repository. */
export interface TeamPatch {
  name?: string;
  leaderAgentId?: string | null;
  brief?: string;
  repoPath?: string | null;
  /** Turn the critic's reviews of the team's auto-mode tasks on or off. */
  critic?: boolean;
  /** A runtime for when a window is spent; null clears it. */
  fallbackRuntime?: string | null;
  /** The host the team's members run on unless placed themselves; null is this computer. */
  hostId?: string | null;
}

/** 'stop' and 'merge' are the orchestrator's notes about a task; an unknown kind decodes as 'system'. */
export type PostKind = 'user' | 'peer' | 'delegate' | 'system' | 'stop' | 'merge';

/** One post of a team's room. authorAgentId is "user" for a person, "system" for the orchestrator. */
export interface Post {
  seq: number;
  teamId: string;
  authorAgentId: string;
  authorName: string;
  kind: PostKind;
  body: string;
  assignee: string | null;
  /** The assignee's member name (the backend adds it beside the contract's assignee id); null when none. */
  assigneeName: string | null;
  /** The task a delegation, report-up, merge, send-back or stop post is about; null when none (or an older server). */
  taskId: string | null;
  createdAt: number;
}

export interface PostsPage {
  posts: Post[];
  more: boolean;
}

export interface ChatRequest {
  message: string;
  targetAgentId?: string;
}

/** Stream event `delta`: live text of a turn (lossy, coalesced). */
export interface DeltaEvent {
  runId: string;
  agentId: string;
  text: string;
}

/** Stream event `turn`: a turn started or ended. */
export interface TurnEvent {
  runId: string;
  agentId: string;
  status: 'running' | 'ended';
  reason?: string;
}

/** Stream event `board`: a task of the team changed. */
export interface TeamBoardEvent {
  taskId: string;
  title: string;
  status: string;
  assigneeAgentId: string | null;
}

export type MemberState = 'idle' | 'working' | 'waiting_approval' | 'over_budget' | 'not_ready';

export interface MissionMember extends Member {
  state: MemberState;
  taskId?: string;
  taskTitle?: string;
  runId?: string;
  latestLine?: string;
  /** Why a member is over budget or not ready, in the backend's words (beside the contract). */
  why?: string;
}

export interface RecentTask {
  id: string;
  title: string;
  status: string;
  kind: string;
  assigneeAgentId: string | null;
  updatedAt: number;
}

export interface Mission {
  team: Team;
  members: MissionMember[];
  costTodayUsd: number;
  tasks: Record<string, number>;
  recentTasks: RecentTask[];
}

export interface OnboardingProvider {
  id: string;
  name: string;
  connected: boolean;
  defaultModel: string;
  keyless: boolean;
}

export interface OnboardingSpecialist {
  runtime: string;
  name: string;
  ready: boolean;
}

export interface OnboardingState {
  needed: boolean;
  teams: number;
  providers: OnboardingProvider[];
  specialists: OnboardingSpecialist[];
  /** The mock runtime is on (CLAWBOO_ENABLE_MOCK_RUNTIME=1): a keyless demo team can be made. */
  demo: boolean;
}

export interface SeedRequest {
  provider: string;
  model?: string;
  repoPath?: string;
  specialists?: string[];
  /** Let the Coder ask to run commands (each one asked first); off when absent. */
  coderShell?: boolean;
}

export interface DemoSeedRequest {
  repoPath?: string;
}

export interface SeedAnswer {
  team: Team;
  suggestedMessage: string;
}
