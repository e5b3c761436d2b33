// Hash routes: #/runs, #/runs/<id>, #/runtimes, #/board, #/board/<taskId>
// (the task's drawer open; either may end in ?team=<teamId>, which sets the
// board's team filter; a drawer's may add show=diff, its diff in view), #/teams, #/teams/<teamId> (its room and mission
// control), #/welcome (the first run), #/spend, #/agents, #/agents/<agentId> (its chat), #/approvals,
// #/routines (scheduled work), #/openclaw (the tool activity of OpenClaw runs Clawboo did not start), #/settings (worktree disk,
// the janitor's report and disk budget, the port range). The bare URL opens the runs page; any
// other unknown route is a not-found page naming what was asked for. Hash routing needs nothing
// from the server and works the same at wails://wails/ and over HTTP.

export type Route =
  | { page: 'runs'; runId: string | null }
  | { page: 'runtimes' }
  /** teamId, when present, sets the board's team filter ("" shows every team); absent keeps it.
   *  show 'diff' (…&show=diff) asks the open drawer to bring its diff into view. */
  | { page: 'board'; taskId: string | null; teamId?: string; show?: 'diff' }
  | { page: 'teams'; teamId: string | null }
  | { page: 'welcome' }
  | { page: 'spend' }
  | { page: 'agents'; agentId: string | null }
  | { page: 'approvals' }
  | { page: 'routines' }
  | { page: 'openclaw' }
  | { page: 'settings' }
  /** An unknown route; path is what was asked for (without the leading "#/"). */
  | { page: 'notfound'; path: string };

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // Keep a malformed escape as typed; the API will call it unknown.
    return raw;
  }
}

export function parseHash(hash: string): Route {
  const full = hash.replace(/^#/, '').replace(/^\/+/, '');
  const q = full.indexOf('?');
  const path = q < 0 ? full : full.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : full.slice(q + 1));
  const [head, ...rest] = path.split('/').filter((p) => p !== '');
  const id = rest.length > 0 ? decodeId(rest[0]!) : null;
  switch (head) {
    case 'runtimes':
      return { page: 'runtimes' };
    case 'spend':
      return { page: 'spend' };
    case 'approvals':
      return { page: 'approvals' };
    case 'routines':
      return { page: 'routines' };
    case 'openclaw':
      return { page: 'openclaw' };
    case 'settings':
      return { page: 'settings' };
    case 'board': {
      const team = query.get('team');
      const r: Route = team === null ? { page: 'board', taskId: id } : { page: 'board', taskId: id, teamId: team };
      return id !== null && query.get('show') === 'diff' ? { ...r, show: 'diff' } : r;
    }
    case 'teams':
      return { page: 'teams', teamId: id };
    case 'welcome':
      return { page: 'welcome' };
    case 'agents':
      return { page: 'agents', agentId: id };
    case 'runs':
      return { page: 'runs', runId: id };
    case undefined:
      // The runs page stays the landing page: the desktop smoke test and
      // the browser suites open the bare URL and expect the run form.
      return { page: 'runs', runId: null };
    default:
      return { page: 'notfound', path: full };
  }
}

export function routeHash(r: Route): string {
  switch (r.page) {
    case 'runtimes':
      return '#/runtimes';
    case 'spend':
      return '#/spend';
    case 'approvals':
      return '#/approvals';
    case 'routines':
      return '#/routines';
    case 'openclaw':
      return '#/openclaw';
    case 'settings':
      return '#/settings';
    case 'agents':
      return r.agentId ? `#/agents/${encodeURIComponent(r.agentId)}` : '#/agents';
    case 'board': {
      const base = r.taskId ? `#/board/${encodeURIComponent(r.taskId)}` : '#/board';
      const q: string[] = [];
      if (r.teamId !== undefined) q.push(`team=${encodeURIComponent(r.teamId)}`);
      if (r.taskId && r.show === 'diff') q.push('show=diff');
      return q.length ? `${base}?${q.join('&')}` : base;
    }
    case 'teams':
      return r.teamId ? `#/teams/${encodeURIComponent(r.teamId)}` : '#/teams';
    case 'welcome':
      return '#/welcome';
    case 'runs':
      return r.runId ? `#/runs/${encodeURIComponent(r.runId)}` : '#/runs';
    case 'notfound':
      return `#/${r.path}`;
  }
}

/** True for the bare URL (no page named): the landing page, where the first-run welcome may take over. */
export function isDefaultHash(hash: string): boolean {
  return /^#?\/*$/.test(hash);
}
