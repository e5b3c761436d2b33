// The one typed client for the Clawboo API. Every URL is relative
// ("/api/..."): in the desktop the page lives at wails://wails/ and the API is
// served in-process through that same origin, where an absolute
// http://127.0.0.1 URL would fail. The same code runs in a browser against
// `clawboo serve`.

import { sessionEnded } from './session';
import {
  decodeConnectionState,
  decodeConnectResult,
  decodeHealth,
  decodeHealthCheck,
  decodeRun,
  decodeRunsPage,
  decodeRuntimeEntry,
  decodeRuntimes,
  decodeStartRun,
  parseInstallEvent,
  type StartedRun,
} from './decode';
import {
  decodeBrowse,
  decodeBudgetAnswer,
  decodeBudgets,
  decodeCommentAnswer,
  decodeDiff,
  decodeRecentRepos,
  decodeResume,
  decodeSpend,
  decodeStorage,
  decodeTaskAnswer,
  decodeTaskDetail,
  decodeTaskPage,
  decodeWorktreeUsage,
} from './boardDecode';
import type {
  BrowseListing,
  Budget,
  BudgetRequest,
  BudgetScope,
  Comment,
  NewTaskRequest,
  RecentRepo,
  SpendBy,
  SpendSummary,
  StorageUsage,
  Task,
  TaskDetail,
  TaskDiff,
  TaskPatch,
  TaskRunRequest,
  TaskPage,
  TaskQuery,
  TaskStatus,
  WorktreeUsage,
} from './boardTypes';
import { AcpAgentsApi } from './acpClient';
import { AgentsApi } from './agentClient';
import { ApprovalsApi } from './approvalClient';
import { LineCommentsApi } from './lineCommentClient';
import { OpenClawApi } from './openclawClient';
import { OnboardingApi, TeamsApi } from './teamClient';
import { SchedulesApi } from './scheduleClient';
import { ApiError, errorFromResponse, UNREACHABLE, type FetchFn } from './errors';
import { postSse } from '../sse/stream';
import type {
  ConnectionState,
  ConnectRequest,
  ConnectResult,
  Health,
  HealthCheckResult,
  InstallEvent,
  Run,
  RunsPage,
  RuntimeEntry,
  RuntimesResponse,
  StartRunRequest,
} from './types';

export { ApiError, describeError, diskFullText, errorFromResponse, isAbort, isDiskFull, type FetchFn } from './errors';

const rt = (id: string): string => `/api/runtimes/${encodeURIComponent(id)}`;
const task = (id: string): string => `/api/board/${encodeURIComponent(id)}`;
const budgetUrl = (scope: BudgetScope, id: string): string =>
  `/api/budgets/${encodeURIComponent(scope)}/${encodeURIComponent(id)}`;

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export class ApiClient {
  private readonly fetchFn: FetchFn;
  /** Agents and their 1:1 chat (agentClient.ts). */
  readonly agents = new AgentsApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** The approvals queue (approvalClient.ts). */
  readonly approvals = new ApprovalsApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** Teams, their rooms and mission control (teamClient.ts). */
  readonly teams = new TeamsApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** Line comments on a task's diff and sending them back to the agent (lineCommentClient.ts). */
  readonly lineComments = new LineCommentsApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** Routines: schedules, their fires and the spec preview (scheduleClient.ts). */
  readonly schedules = new SchedulesApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** A person's own ACP agents (acpClient.ts). */
  readonly acp = new AcpAgentsApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** The first-run welcome (teamClient.ts). */
  readonly onboarding = new OnboardingApi((method, path, body, signal) => this.request(method, path, body, signal));
  /** The OpenClaw Gateway's settings, status, MCP registration and activity (openclawClient.ts). */
  readonly openclaw = new OpenClawApi(
    (method, path, body, signal) => this.request(method, path, body, signal),
    // Read at call time: field initialisers run before the constructor sets fetchFn.
    (input, init) => this.fetchFn(input, init),
  );

  constructor(fetchFn?: FetchFn) {
    // Bind lazily so tests can swap globalThis.fetch and so `this` is right.
    this.fetchFn = fetchFn ?? ((input, init) => globalThis.fetch(input, init));
  }

  private async request(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const init: RequestInit = { method, headers: { Accept: 'application/json' }, cache: 'no-store' };
    if (signal) init.signal = signal;
    if (body !== undefined) {
      init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(path, init);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, UNREACHABLE);
    }
    if (res.status === 401) sessionEnded();
    if (!res.ok) throw await errorFromResponse(res);
    // 204 (a team deleted, the welcome skipped) has no body to read.
    if (res.status === 204) return null;
    try {
      return (await res.json()) as unknown;
    } catch {
      throw new ApiError(res.status, `the backend sent an unreadable answer to ${method} ${path}`);
    }
  }

  async health(signal?: AbortSignal): Promise<Health> {
    return decodeHealth(await this.request('GET', '/api/health', undefined, signal));
  }

  async runtimes(signal?: AbortSignal): Promise<RuntimesResponse> {
    return decodeRuntimes(await this.request('GET', '/api/runtimes', undefined, signal));
  }

  /** Starts a run and returns its id at once; the caller streams its events. */
  async startRun(runtimeId: string, req: StartRunRequest): Promise<{ runId: string }> {
    return decodeStartRun(await this.request('POST', `${rt(runtimeId)}/run`, { ...req, wait: false }));
  }

  /**
   * Installs a runtime's CLI, calling onEvent for each event of the install
   * stream, and settles when the stream ends. Aborting the signal closes
   * the request, which stops the installer. A refusal (built in, unknown,
   * already installing) rejects with the backend's words.
   */
  async install(id: string, onEvent: (ev: InstallEvent) => void, signal?: AbortSignal): Promise<void> {
    const opts: Parameters<typeof postSse>[0] = {
      url: `${rt(id)}/install`,
      body: {},
      fetch: this.fetchFn,
      onMessage: (m) => {
        const ev = parseInstallEvent(m.data);
        if (ev) onEvent(ev);
      },
    };
    if (signal) opts.signal = signal;
    await postSse(opts);
  }

  /** Stores a key (or, for a keyless provider, nothing) and answers the new state. */
  async connect(id: string, req: ConnectRequest): Promise<ConnectResult> {
    return decodeConnectResult(await this.request('POST', `${rt(id)}/connect`, req));
  }

  async disconnect(id: string): Promise<ConnectResult> {
    return decodeConnectResult(await this.request('POST', `${rt(id)}/disconnect`, {}));
  }

  /**
   * Asks the provider whether a key works, without storing it (native
   * runtime only). Without apiKey the stored key is checked. A bad key is
   * {ok: false, error}, not a rejection.
   */
  async healthcheck(provider: string, apiKey?: string): Promise<HealthCheckResult> {
    const body: ConnectRequest = apiKey === undefined ? { provider } : { provider, apiKey };
    return decodeHealthCheck(await this.request('POST', `${rt('clawboo-native')}/healthcheck`, body));
  }

  /** Asks a local Ollama whether it answers, at baseUrl or at its configured address. */
  async healthcheckOllama(baseUrl?: string): Promise<HealthCheckResult> {
    const body = baseUrl === undefined ? { provider: 'ollama' } : { provider: 'ollama', baseUrl };
    return decodeHealthCheck(await this.request('POST', `${rt('clawboo-native')}/healthcheck`, body));
  }

  /** The saved address of a local Ollama (a setting, not a secret); null when none. */
  async ollamaURL(): Promise<string | null> {
    const v = (await this.request('GET', '/api/settings/ollama-base-url')) as { url?: unknown };
    return typeof v?.url === 'string' ? v.url : null;
  }

  /** Saves (null clears) the local Ollama's address and answers the native runtime's state. */
  async setOllamaURL(url: string | null): Promise<ConnectionState> {
    const v = (await this.request('PUT', '/api/settings/ollama-base-url', { url })) as { connectionState?: unknown };
    return decodeConnectionState(v?.connectionState);
  }

  /** Re-probes a runtime (its binary, Codex's login) and answers its fresh entry. */
  async recheck(id: string): Promise<RuntimeEntry> {
    return decodeRuntimeEntry(await this.request('POST', `${rt(id)}/recheck`, {}));
  }

  /** Recent runs, newest first; with sessionKey only that conversation's (an agent's chat: "agent:<id>:chat"). */
  async listRuns(opts: { limit?: number; before?: string | null; sessionKey?: string } = {}, signal?: AbortSignal): Promise<RunsPage> {
    const q = new URLSearchParams();
    if (opts.sessionKey) q.set('sessionKey', opts.sessionKey);
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    if (opts.before) q.set('before', opts.before);
    const qs = q.toString();
    return decodeRunsPage(await this.request('GET', `/api/runs${qs ? `?${qs}` : ''}`, undefined, signal));
  }

  async getRun(id: string, signal?: AbortSignal): Promise<Run> {
    return decodeRun(await this.request('GET', `/api/runs/${encodeURIComponent(id)}`, undefined, signal));
  }

  async abortRun(id: string): Promise<void> {
    await this.request('POST', `/api/runs/${encodeURIComponent(id)}/abort`, {});
  }

  // ---- the board ----

  /** One page of the board: its tasks, the next page's cursor ("" at the end) and per-status counts over the whole filter. */
  async listTasks(q: TaskQuery = {}, signal?: AbortSignal): Promise<TaskPage> {
    const p = new URLSearchParams();
    if (q.status?.length) p.set('status', q.status.join(','));
    for (const k of ['teamId', 'agentId', 'runtime', 'q', 'order', 'cursor'] as const) if (q[k]) p.set(k, q[k]);
    if (q.limit) p.set('limit', String(q.limit));
    const qs = p.toString().replaceAll('%2C', ',');
    return decodeTaskPage(await this.request('GET', `/api/board${qs ? `?${qs}` : ''}`, undefined, signal));
  }

  async createTask(req: NewTaskRequest): Promise<Task> {
    return decodeTaskAnswer(await this.request('POST', '/api/board', req));
  }

  async getTask(id: string, signal?: AbortSignal): Promise<TaskDetail> {
    return decodeTaskDetail(await this.request('GET', task(id), undefined, signal));
  }

  /** Edits a task or moves it; a refused move rejects with the rule's reason (illegal_transition, verification_required). */
  async patchTask(id: string, patch: TaskPatch): Promise<Task> {
    return decodeTaskAnswer(await this.request('PATCH', task(id), patch));
  }

  async addComment(id: string, body: string): Promise<Comment> {
    return decodeCommentAnswer(await this.request('POST', `${task(id)}/comments`, { body, authorType: 'user' }));
  }

  async addDependency(id: string, dependsOnTaskId: string): Promise<Task> {
    return decodeTaskAnswer(await this.request('POST', `${task(id)}/deps`, { dependsOnTaskId }));
  }

  async removeDependency(id: string, dep: string): Promise<Task> {
    return decodeTaskAnswer(await this.request('DELETE', `${task(id)}/deps/${encodeURIComponent(dep)}`));
  }

  /** The task's change; rejects with 404 when it has no worktree. */
  async taskDiff(id: string, signal?: AbortSignal): Promise<TaskDiff> {
    return decodeDiff(await this.request('GET', `${task(id)}/diff`, undefined, signal));
  }

  /**
   * Starts a run of a board task and returns its id at once (and, when the
   * quota governor routed it to a fallback runtime, where from and why);
   * refusals carry a reason (conflict, budget_paused, quota, …).
   */
  async runTask(runtimeId: string, req: TaskRunRequest): Promise<StartedRun> {
    return decodeStartRun(await this.request('POST', `${rt(runtimeId)}/run`, { ...req, wait: false }));
  }

  async worktrees(signal?: AbortSignal): Promise<WorktreeUsage> {
    return decodeWorktreeUsage(await this.request('GET', '/api/worktrees', undefined, signal));
  }

  /** The database's size beside the worktrees', and the event log's retention budgets. */
  async storage(signal?: AbortSignal): Promise<StorageUsage> {
    return decodeStorage(await this.request('GET', '/api/storage', undefined, signal));
  }

  async recentRepos(signal?: AbortSignal): Promise<RecentRepo[]> {
    return decodeRecentRepos(await this.request('GET', '/api/repos', undefined, signal));
  }

  /** The folders in `path` (absolute; default the user's home), marking git repositories. */
  async browseRepos(path?: string, signal?: AbortSignal): Promise<BrowseListing> {
    const qs = path ? `?path=${encodeURIComponent(path)}` : '';
    return decodeBrowse(await this.request('GET', `/api/repos/browse${qs}`, undefined, signal));
  }

  // ---- spend and budgets ----

  /** The cost ledger grouped by `by`, over [since, until) (dates as YYYY-MM-DD, UTC). */
  async spend(by: SpendBy, range: { since?: string; until?: string } = {}, signal?: AbortSignal): Promise<SpendSummary> {
    const q = new URLSearchParams({ by });
    if (range.since) q.set('since', range.since);
    if (range.until) q.set('until', range.until);
    return decodeSpend(await this.request('GET', `/api/spend?${q.toString()}`, undefined, signal));
  }

  async budgets(signal?: AbortSignal): Promise<Budget[]> {
    return decodeBudgets(await this.request('GET', '/api/budgets', undefined, signal));
  }

  /** Creates a budget or replaces the one on the same scope. */
  async setBudget(req: BudgetRequest): Promise<Budget> {
    return decodeBudgetAnswer(await this.request('POST', '/api/budgets', req));
  }

  async deleteBudget(scope: BudgetScope, scopeId: string): Promise<void> {
    await this.request('DELETE', budgetUrl(scope, scopeId));
  }

  /** Lifts a paused budget, allowing graceUsd more; willRepause says the grace is already spent. */
  async resumeBudget(scope: BudgetScope, scopeId: string, graceUsd: number): Promise<{ budget: Budget; willRepause: boolean }> {
    return decodeResume(await this.request('POST', `${budgetUrl(scope, scopeId)}/resume`, { graceUsd }));
  }
}

/** URL of a run's event stream (resume is by the Last-Event-ID header). */
export function runEventsUrl(id: string): string {
  return `/api/runs/${encodeURIComponent(id)}/events`;
}

/** URL of the run lifecycle stream. */
export const LIFECYCLE_URL = '/api/events';

/** The app's shared client. */
export const api = new ApiClient();
