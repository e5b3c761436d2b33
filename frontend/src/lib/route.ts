// Hash routes: #/runs, #/runs/<id>, #/runtimes. Hash routing needs nothing
// from the server and works the same at wails://wails/ and over HTTP.

export type Route = { page: 'runs'; runId: string | null } | { page: 'runtimes' };

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/^\/+/, '');
  const [head, ...rest] = path.split('/').filter((p) => p !== '');
  if (head === 'runtimes') return { page: 'runtimes' };
  if (head === 'runs' && rest.length > 0) {
    let id = rest[0]!;
    try {
      id = decodeURIComponent(id);
    } catch {
      // Keep a malformed escape as typed; the API will call it unknown.
    }
    return { page: 'runs', runId: id };
  }
  return { page: 'runs', runId: null };
}

export function routeHash(r: Route): string {
  if (r.page === 'runtimes') return '#/runtimes';
  return r.runId ? `#/runs/${encodeURIComponent(r.runId)}` : '#/runs';
}
