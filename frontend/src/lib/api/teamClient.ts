// The teams routes of the API client (docs/teams.md, backend/api/teams.go):
// teams and their members, the room, mission control and the first run.
// Kept apart from client.ts so that file stays small; reached as
// `api.teams` and `api.onboarding`.

import { ApiError } from './errors';
import { isObject } from './decode';
import {
  decodeChatAnswer,
  decodePost,
  decodeMission,
  decodeOnboardingState,
  decodePostsPage,
  decodeSeedAnswer,
  decodeStopped,
  decodeTeamAnswer,
  decodeTeams,
} from './teamDecode';
import type { ChatRequest, DemoSeedRequest, Mission, NewTeamRequest, OnboardingState, Post, PostsPage, SeedAnswer, SeedRequest, Team, TeamPatch } from './teamTypes';

type Request = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal) => Promise<unknown>;

const teamUrl = (id: string): string => `/api/teams/${encodeURIComponent(id)}`;

/** URL of a team room's event stream (resume is by the Last-Event-ID header: the last post's seq). */
export function teamStreamUrl(id: string): string {
  return `${teamUrl(id)}/chat/stream`;
}

export class TeamsApi {
  constructor(private readonly request: Request) {}

  async list(signal?: AbortSignal): Promise<Team[]> {
    return decodeTeams(await this.request('GET', '/api/teams', undefined, signal));
  }

  async get(id: string, signal?: AbortSignal): Promise<Team> {
    return decodeTeamAnswer(await this.request('GET', teamUrl(id), undefined, signal));
  }

  /** Creates a team; 409 when the name is in use. */
  async create(req: NewTeamRequest): Promise<Team> {
    return decodeTeamAnswer(await this.request('POST', '/api/teams', req));
  }

  async patch(id: string, patch: TeamPatch): Promise<Team> {
    return decodeTeamAnswer(await this.request('PATCH', teamUrl(id), patch));
  }

  /** Deletes a team; 409 while one of its turns or tasks is live. */
  async remove(id: string): Promise<void> {
    await this.request('DELETE', teamUrl(id));
  }

  async addMember(id: string, agentId: string): Promise<Team> {
    return decodeTeamAnswer(await this.request('POST', `${teamUrl(id)}/agents`, { agentId }));
  }

  /** Removing the leader clears leaderAgentId. */
  async removeMember(id: string, agentId: string): Promise<Team> {
    return decodeTeamAnswer(await this.request('DELETE', `${teamUrl(id)}/agents/${encodeURIComponent(agentId)}`));
  }

  /** The room's posts after seq `after`, oldest first (limit ≤ 500). */
  async posts(id: string, after = 0, limit = 500, signal?: AbortSignal): Promise<PostsPage> {
    const q = new URLSearchParams({ after: String(after), limit: String(limit) });
    return decodePostsPage(await this.request('GET', `${teamUrl(id)}/chat?${q.toString()}`, undefined, signal));
  }

  /**
   * Posts a message and starts a turn. A refusal (409 budget paused or no
   * leader, 503 runtime not ready) rejects with a ChatRefusal, carrying the
   * person's post when it was committed before the turn was refused.
   */
  async chat(id: string, req: ChatRequest): Promise<{ post: Post | null; runId: string }> {
    try {
      return decodeChatAnswer(await this.request('POST', `${teamUrl(id)}/chat`, req));
    } catch (err) {
      if (err instanceof ApiError) throw ChatRefusal.from(err);
      throw err;
    }
  }

  /** Stops every live turn and delegated task run of the team; answers how many. */
  async stopAll(id: string): Promise<number> {
    return decodeStopped(await this.request('POST', `${teamUrl(id)}/chat/stop`, {}));
  }

  async stopMember(id: string, agentId: string): Promise<number> {
    return decodeStopped(await this.request('POST', `${teamUrl(id)}/members/${encodeURIComponent(agentId)}/stop`, {}));
  }

  async mission(id: string, signal?: AbortSignal): Promise<Mission> {
    return decodeMission(await this.request('GET', `${teamUrl(id)}/mission`, undefined, signal));
  }
}

export class OnboardingApi {
  constructor(private readonly request: Request) {}

  async state(signal?: AbortSignal): Promise<OnboardingState> {
    return decodeOnboardingState(await this.request('GET', '/api/onboarding/state', undefined, signal));
  }

  async skip(): Promise<void> {
    await this.request('POST', '/api/onboarding/skip', {});
  }

  async seedNativeTeam(req: SeedRequest): Promise<SeedAnswer> {
    return decodeSeedAnswer(await this.request('POST', '/api/onboarding/seed-native-team', req));
  }

  /** Whether a repository would be taken (POST /api/repos/check): resolves, or throws the refusal (reason bad_repository). */
  async checkRepo(repoPath: string): Promise<void> {
    await this.request('POST', '/api/repos/check', { repoPath });
  }

  async seedDemoTeam(req: DemoSeedRequest): Promise<SeedAnswer> {
    return decodeSeedAnswer(await this.request('POST', '/api/onboarding/seed-demo-team', req));
  }
}

/** A refused team chat: the backend's words and reason, and the person's post if it was committed anyway. */
export class ChatRefusal extends ApiError {
  override name = 'ChatRefusal';
  constructor(
    err: ApiError,
    readonly post: Post | null,
  ) {
    super(err.status, err.message, err.reason, err.body);
  }

  static from(err: ApiError): ChatRefusal {
    let post: Post | null = null;
    if (isObject(err.body) && isObject(err.body.post)) {
      try {
        post = decodePost(err.body.post);
      } catch {
        post = null;
      }
    }
    return new ChatRefusal(err, post);
  }
}
