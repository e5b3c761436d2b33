// A client of a test server's clawboo-tools MCP server, as a real MCP
// client reaches it: the address and token from `clawboo mcp config`, then
// JSON-RPC over streamable HTTP (a JSON or an SSE answer), session kept;
// the delete_path request the approval suites make a person answer; and
// those suites' shared rig.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { promisify } from 'node:util';
import { apiAnswer } from './api.mjs';
import { launchBrowser, startServer } from './harness.mjs';

/** Connects (initialize + initialized) and returns call(method, params, notification). */
export async function connectTools(bin, server, env) {
  const { stdout } = await promisify(execFile)(bin, ['mcp', 'config', '--client', 'json', '--home', server.home], { env });
  const t = JSON.parse(stdout.slice(stdout.indexOf('{'))).mcpServers['clawboo-tools'];
  const tools = { url: t.url, auth: t.headers.Authorization, session: '' };
  let nextId = 1;
  async function call(method, params, notification = false) {
    const body = { jsonrpc: '2.0', method };
    if (!notification) body.id = nextId++;
    if (params !== undefined) body.params = params;
    const headers = { Authorization: tools.auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    if (tools.session) headers['Mcp-Session-Id'] = tools.session;
    const res = await fetch(tools.url, { method: 'POST', headers, body: JSON.stringify(body) });
    assert.ok(res.ok || (notification && res.status === 202), `${method}: ${res.status} ${await res.clone().text()}`);
    tools.session = res.headers.get('mcp-session-id') ?? tools.session;
    if (notification) return null;
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim());
      return JSON.parse(data[data.length - 1]);
    }
    return JSON.parse(text);
  }
  const init = await call('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'clawboo-e2e', version: '1' } });
  assert.equal(init.result.serverInfo.name, 'clawboo-tools');
  await call('notifications/initialized', undefined, true);
  return call;
}

/** Asks clawboo-tools to delete a new folder under home; resolves with the tool's result once a person answers. */
export async function askToDelete(mcp, home, name, why) {
  const path = join(home, name);
  await mkdir(path, { recursive: true });
  const answer = mcp('tools/call', { name: 'delete_path', arguments: { path, why } });
  // A failing test may never await it; the server's shutdown must not become an unhandled rejection.
  answer.catch(() => {});
  return { path, answer };
}

/** The id of the pending approval whose arguments name path (polled for up to 5 s). */
export async function pendingApprovalId(server, path) {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${server.url}/api/approvals`);
    const json = await res.json();
    const found = json.approvals.find((a) => a.args?.includes(path));
    if (found) return found.id;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`no pending approval for ${path}`);
}

/** Whether a path exists. */
export const pathExists = (p) =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * The approval suites' shared rig, registered as the suite's before and
 * after: a `clawboo serve` on a fresh HOME (file vault; delete_path only
 * ever touches folders made there), Chromium, and clawboo-tools connected
 * as an agent would be. Its fields are set once before() has run.
 */
export function approvalsRig(bin, prefix) {
  const rig = {
    server: null,
    browser: null,
    home: '',
    mcp: null,
    askDelete: (name, why) => askToDelete(rig.mcp, rig.home, name, why),
    api: (method, path, body) => apiAnswer(rig.server, method, path, body),
    card: (page, id) => page.locator(`[data-testid="approval-card"][data-approval-id="${id}"]`),
    pendingId: (path) => pendingApprovalId(rig.server, path),
  };
  before(async () => {
    rig.home = await mkdtemp(join(tmpdir(), prefix));
    const env = { ...process.env, HOME: rig.home, CLAWBOO_VAULT: 'file' };
    rig.server = await startServer({ env });
    rig.browser = await launchBrowser();
    rig.mcp = await connectTools(bin, rig.server, env);
  });
  after(async () => {
    await rig.browser?.close();
    await rig.server?.stop();
    if (rig.home) await rm(rig.home, { recursive: true, force: true });
  });
  return rig;
}
