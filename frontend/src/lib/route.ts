// Hash routes: #/runs, #/runs/<id>, #/runtimes, #/board, #/board/<taskId>
// (the task's drawer open), #/spend, #/agents, #/agents/<agentId> (its chat), #/approvals,
// #/openclaw (the tool activity of OpenClaw runs Clawboo did not start). Hash routing needs nothing from the
// server and works the same at wails://wails/ and over HTTP.

export type Route =
  | { page: 'runs'; runId: string | null }
  | { page: 'runtimes' }
  | { page: 'board'; taskId: string | null }
  | { page: 'spend' }
  | { page: 'agents'; agentId: string | null }
  | { page: 'approvals' }
  | { page: 'openclaw' };

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // Keep a malformed escape as typed; the API will call it unknown.
    return raw;
  }
}

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/^\/+/, '');
  const [head, ...rest] = path.split('/').filter((p) => p !== '');
  const id = rest.length > 0 ? decodeId(rest[0]!) : null;
  switch (head) {
    case 'runtimes':
      return { page: 'runtimes' };
    case 'spend':
      return { page: 'spend' };
    case 'approvals':
      return { page: 'approvals' };
    case 'openclaw':
      return { page: 'openclaw' };
    case 'board':
      return { page: 'board', taskId: id };
    case 'agents':
      return { page: 'agents', agentId: id };
    case 'runs':
      return { page: 'runs', runId: id };
    default:
      // The runs page stays the landing page: the desktop smoke test and
      // the browser suites open the bare URL and expect the run form.
      return { page: 'runs', runId: null };
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
    case 'openclaw':
      return '#/openclaw';
    case 'agents':
      return r.agentId ? `#/agents/${encodeURIComponent(r.agentId)}` : '#/agents';
    case 'board':
      return r.taskId ? `#/board/${encodeURIComponent(r.taskId)}` : '#/board';
    case 'runs':
      return r.runId ? `#/runs/${encodeURIComponent(r.runId)}` : '#/runs';
  }
}
