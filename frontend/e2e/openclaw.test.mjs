// The OpenClaw UI (issue 9) in Chromium against a real `clawboo serve`: the
// OpenClaw card beside the runtime cards in its unconfigured state, saving
// settings that point at a port nobody listens on (the card turns to its
// error state, the token only ever masked and never on the page), a refused
// URL (the backend's 400 under the form), the board refusing Run for an
// OpenClaw agent, and the activity page, empty. Then against a scripted
// Gateway double in this process (the handshake, agents.list, config.get /
// config.patch, session.tool and exec approval events): a wrong token's
// UNAUTHORIZED, the connected card, the MCP registration, the activity of a
// run Clawboo did not start, and an approval answered in OpenClaw.
//
//     (cd frontend && npm run build) && CGO_ENABLED=0 go build -o /tmp/clawboo . &&
//     (cd frontend && CLAWBOO_BIN=/tmp/clawboo node --test e2e/openclaw.test.mjs)

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';

requireBin();

// playwright-core bundles the ws package; the double's WebSocket server is that.
const { wsServer: WebSocketServer } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle');

/** The secret the tests save; it must never appear on the page. */
const TOKEN = 'oc-secret-token-e2e-7f3a';
/** A port nobody listens on (discard): every dial fails at once. */
const DEAD_URL = 'ws://127.0.0.1:9';

let browser;
let server;
let home;

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawboo-e2e-openclaw-home-'));
  // No OpenClaw settings from the runner: its own env and ~/.openclaw stay out.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLAWBOO_OPENCLAW_')));
  server = await startServer({ env: { ...env, HOME: home, CLAWBOO_VAULT: 'file' } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const ocCard = (page) => page.getByTestId('openclaw-card');

async function waitCardState(page, state, timeout = 15_000) {
  try {
    await page.waitForSelector(`[data-testid="openclaw-card"][data-state="${state}"]`, { timeout });
  } catch (err) {
    const now = await ocCard(page).getAttribute('data-state').catch(() => '?');
    const text = await ocCard(page).textContent().catch(() => '');
    throw new Error(`the OpenClaw card never reached ${state} (it is ${now}): ${err.message}\n${text}`);
  }
}

async function api(path, init) {
  const res = await fetch(`${server.url}${path}`, init);
  return { status: res.status, body: await res.json() };
}

describe('OpenClaw', { timeout: 90_000 }, () => {
  test('the card, unconfigured, beside the runtime cards, with its settings form open', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runtimes`);
    try {
      await page.waitForSelector('[data-testid="runtime-card"]');
      await waitCardState(page, 'unconfigured');
      const card = ocCard(page);
      assert.equal((await card.getByTestId('openclaw-state').textContent()).trim(), 'Not set up');
      assert.equal((await card.getByTestId('openclaw-headline').textContent()).trim(), 'Not connected: set the Gateway URL');
      assert.equal(await card.getByTestId('openclaw-error').count(), 0);
      assert.equal(await card.getByTestId('openclaw-mcp').count(), 0, 'MCP registration only when connected');
      // It sits among the runtime cards, in the same grid.
      assert.equal(await page.locator('.grid > [data-testid="openclaw-card"]').count(), 1);

      const url = card.getByTestId('openclaw-url');
      assert.ok(await url.isVisible(), 'the form is open while there is nothing to connect to');
      assert.equal(await url.getAttribute('placeholder'), 'ws://127.0.0.1:18789');
      const token = card.getByTestId('openclaw-token');
      assert.equal(await token.getAttribute('type'), 'password');
      assert.equal(await card.getByTestId('openclaw-clear-token').count(), 0, 'no token to clear');
      // "Set the Gateway URL" takes focus to the URL field.
      await card.getByTestId('openclaw-set-url').click();
      assert.equal(await url.evaluate((el) => el === document.activeElement), true);

      await card.getByTestId('openclaw-activity-link').click();
      await page.waitForSelector('[data-testid="openclaw-activity"]');
      assert.match(page.url(), /#\/openclaw$/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a refused URL shows the backend words under the form and saves nothing', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runtimes`);
    try {
      const card = ocCard(page);
      await waitCardState(page, 'unconfigured');
      await card.getByTestId('openclaw-url').fill('http://127.0.0.1:18789');
      await card.getByTestId('openclaw-save').click();
      const err = card.getByTestId('openclaw-settings-error');
      await err.waitFor();
      assert.match(await err.textContent(), /the Gateway URL must be ws:\/\/ or wss:\/\/host:port/);
      assert.equal(await card.getByTestId('openclaw-url').getAttribute('aria-invalid'), 'true');
      const { body } = await api('/api/openclaw/settings');
      assert.equal(body.url, '');
      assert.equal(body.urlSource, '');
      assert.equal(await card.getAttribute('data-state'), 'unconfigured');
      // Chromium logs the expected 400 itself; nothing else may go wrong.
      assert.deepEqual(problems.filter((p) => !/Failed to load resource: the server responded with a status of 400/.test(p)), []);
    } finally {
      await context.close();
    }
  });

  test('an unreachable Gateway: the error state with its retry, the token masked and never on the page', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runtimes`);
    try {
      const card = ocCard(page);
      await waitCardState(page, 'unconfigured');
      await card.getByTestId('openclaw-url').fill(DEAD_URL);
      await card.getByTestId('openclaw-token').fill(TOKEN);
      await card.getByTestId('openclaw-save').click();
      await card.getByTestId('openclaw-settings-saved').waitFor();
      assert.equal(await card.getByTestId('openclaw-token').inputValue(), '', 'the typed token leaves the field');
      assert.equal(await card.getByTestId('openclaw-token').getAttribute('placeholder'), '••••7f3a');
      assert.equal(await card.getByTestId('openclaw-clear-token').count(), 1);

      await waitCardState(page, 'error', 30_000);
      assert.equal((await card.getByTestId('openclaw-state').textContent()).trim(), 'Error');
      assert.match(await card.getByTestId('openclaw-error').textContent(), /\S/);
      assert.match(await card.getByTestId('openclaw-retry').textContent(), /^Retrying at \d\d:\d\d:\d\d \((in \d+(m \d\ds|s)|now)\)/);
      assert.equal((await card.getByTestId('openclaw-url-shown').textContent()).trim(), DEAD_URL);

      const { body } = await api('/api/openclaw/settings');
      assert.deepEqual(
        { url: body.url, urlSource: body.urlSource, tokenSet: body.tokenSet, tokenMasked: body.tokenMasked, tokenSource: body.tokenSource },
        { url: DEAD_URL, urlSource: 'settings', tokenSet: true, tokenMasked: '••••7f3a', tokenSource: 'vault' },
      );
      // A fresh page (what the status stream and the form read) never carries the token.
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await waitCardState(page, 'error', 30_000);
      assert.equal(await ocCard(page).getByTestId('openclaw-url').inputValue(), DEAD_URL);
      const html = await page.content();
      assert.ok(!html.includes(TOKEN), 'the token is not on the page');
      assert.ok(!html.includes(TOKEN.slice(0, -4)), 'no part of the token but its last 4 is on the page');
      const status = await (await fetch(`${server.url}/api/openclaw/status`)).text();
      assert.ok(!status.includes(TOKEN), 'nor in the status');

      // Clear removes the token from the vault.
      await ocCard(page).getByTestId('openclaw-settings-toggle').click();
      await ocCard(page).getByTestId('openclaw-clear-token').click();
      await ocCard(page).getByTestId('openclaw-settings-saved').waitFor();
      assert.equal((await api('/api/openclaw/settings')).body.tokenSet, false);
      assert.equal(await ocCard(page).getByTestId('openclaw-clear-token').count(), 0);
      assert.equal(await ocCard(page).getByTestId('openclaw-token').getAttribute('placeholder'), 'Gateway token (optional)');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the board does not offer Run for an OpenClaw agent, and says why', async () => {
    const post = (path, body) =>
      api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const agent = await post('/api/agents', { name: 'Gateway helper', runtime: 'openclaw' });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const task = await post('/api/board', { title: 'Tidy the notes' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.body.task.id}`);
    try {
      const start = page.getByTestId('task-run-start');
      await start.waitFor();
      assert.equal(await page.getByTestId('task-run-substrate').count(), 0);
      await page.getByTestId('task-run-agent').click();
      await page.locator(`[data-testid="task-run-agent-option"][data-agent-id="${agent.body.agent.id}"]`).click();
      await page.getByTestId('task-run-substrate').waitFor();
      assert.match(await page.getByTestId('task-run-substrate').textContent(), /OpenClaw agents .* cannot run board tasks/);
      assert.equal(await start.getAttribute('aria-disabled'), 'true');
      await start.click({ force: true });
      assert.equal(await page.getByTestId('task-run-error').count(), 0, 'nothing was sent');
      assert.equal((await api(`/api/board/${task.body.task.id}`)).body.task.status, 'todo');
      await page.getByTestId('task-run-agent').click();
      await page.locator('[data-testid="task-run-agent-option"][data-agent-id=""]').click();
      assert.equal(await page.getByTestId('task-run-substrate').count(), 0);
      assert.notEqual(await start.getAttribute('aria-disabled'), 'true');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the activity page renders empty', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/openclaw`);
    try {
      await page.getByTestId('openclaw-activity-empty').waitFor();
      assert.equal((await page.getByTestId('openclaw-activity-empty').textContent()).trim(), 'No tool activity from OpenClaw yet.');
      assert.equal(await page.getByTestId('openclaw-session').count(), 0);
      await page.waitForSelector('[data-testid="openclaw-activity-live"][data-live="true"]');
      assert.equal(await page.getByTestId('openclaw-activity-error').count(), 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

/**
 * A scripted OpenClaw Gateway: the connect.challenge handshake (the token
 * checked, the device signature not), the requests the card and the MCP
 * registration make, and events pushed by the test to every connection.
 */
async function startGatewayDouble({ token }) {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const conns = new Set();
  const requests = [];
  const servers = {};
  wss.on('connection', (ws) => {
    const send = (v) => ws.send(JSON.stringify(v));
    send({ type: 'event', event: 'connect.challenge', payload: { nonce: 'nonce-e2e', ts: Date.now() } });
    ws.on('message', (buf) => {
      const f = JSON.parse(buf.toString());
      if (f.type !== 'req') return;
      requests.push({ method: f.method, params: f.params });
      const ok = (payload) => send({ type: 'res', id: f.id, ok: true, payload });
      const fail = (code, message) => send({ type: 'res', id: f.id, ok: false, error: { code, message } });
      switch (f.method) {
        case 'connect':
          if (f.params?.auth?.token !== token) return fail('UNAUTHORIZED', 'gateway token mismatch');
          conns.add(ws);
          return ok({ type: 'hello-ok', protocol: 4, server: { version: '2026.9.6', connId: 'e2e' }, policy: { tickIntervalMs: 30_000 } });
        case 'agents.list':
          return ok({ defaultId: 'main', agents: [{ id: 'main', workspace: '/srv/openclaw/workspace', model: { primary: 'fakeoai/fake-model' } }] });
        case 'config.get':
          // Like the real Gateway: URLs back, never the headers (the attach token).
          return ok({ hash: 'hash-1', config: { mcp: { servers: Object.fromEntries(Object.entries(servers).map(([k, v]) => [k, { url: v.url }])) } } });
        case 'config.patch':
          Object.assign(servers, JSON.parse(f.params.raw).mcp.servers);
          return ok({ hash: 'hash-2' });
        case 'sessions.subscribe':
          return ok({});
        case 'exec.approval.list':
          return ok([]);
        default:
          return fail('INVALID_REQUEST', `unknown method ${f.method}`);
      }
    });
    ws.on('close', () => conns.delete(ws));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${http.address().port}`,
    requests,
    servers,
    broadcast(event, payload) {
      for (const ws of conns) ws.send(JSON.stringify({ type: 'event', event, payload }));
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe('OpenClaw set by the environment', { timeout: 60_000 }, () => {
  let srv;
  let home3;
  before(async () => {
    home3 = await mkdtemp(join(tmpdir(), 'clawboo-e2e-openclaw-home-'));
    srv = await startServer({
      env: { ...process.env, HOME: home3, CLAWBOO_VAULT: 'file', CLAWBOO_OPENCLAW_URL: DEAD_URL, CLAWBOO_OPENCLAW_TOKEN: 'env-secret-token-5678' },
    });
  });
  after(async () => {
    await srv?.stop();
    if (home3) await rm(home3, { recursive: true, force: true });
  });

  test('the form says what CLAWBOO_OPENCLAW_URL / _TOKEN override and keeps those fields read-only', async () => {
    const { page, context, problems } = await openPage(browser, `${srv.url}/#/runtimes`);
    try {
      const card = ocCard(page);
      await waitCardState(page, 'error', 30_000);
      await card.getByTestId('openclaw-settings-toggle').click();
      const url = card.getByTestId('openclaw-url');
      await page.waitForFunction(() => document.querySelector('[data-testid="openclaw-url"]')?.value === 'ws://127.0.0.1:9');
      assert.equal(await url.getAttribute('readonly'), '');
      assert.equal((await card.getByTestId('openclaw-url-note').textContent()).trim(), 'Set by CLAWBOO_OPENCLAW_URL (overrides this form).');
      const token = card.getByTestId('openclaw-token');
      assert.equal(await token.getAttribute('readonly'), '');
      assert.equal(await token.getAttribute('placeholder'), '••••5678');
      assert.equal((await card.getByTestId('openclaw-token-note').textContent()).trim(), 'Set by CLAWBOO_OPENCLAW_TOKEN (overrides this form).');
      assert.equal(await card.getByTestId('openclaw-clear-token').count(), 0);
      assert.ok(!(await page.content()).includes('env-secret-token'), 'the token is not on the page');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

describe('OpenClaw connected (a Gateway double)', { timeout: 90_000 }, () => {
  const GW_TOKEN = 'gw-e2e-token-9c41';
  let gw;
  let srv;
  let home2;

  before(async () => {
    gw = await startGatewayDouble({ token: GW_TOKEN });
    home2 = await mkdtemp(join(tmpdir(), 'clawboo-e2e-openclaw-home-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLAWBOO_OPENCLAW_')));
    srv = await startServer({ env: { ...env, HOME: home2, CLAWBOO_VAULT: 'file' } });
  });

  after(async () => {
    await srv?.stop();
    await gw?.close();
    if (home2) await rm(home2, { recursive: true, force: true });
  });

  test('a wrong token is refused, the right one connects: agents, MCP registration, activity, an approval answered in OpenClaw', async () => {
    const { page, context, problems } = await openPage(browser, `${srv.url}/#/runtimes`);
    try {
      const card = ocCard(page);
      await waitCardState(page, 'unconfigured');
      await card.getByTestId('openclaw-url').fill(gw.url);
      await card.getByTestId('openclaw-token').fill('gw-wrong-token-0000');
      await card.getByTestId('openclaw-save').click();
      await waitCardState(page, 'error', 30_000);
      assert.match(await card.getByTestId('openclaw-error').textContent(), /UNAUTHORIZED/);

      await card.getByTestId('openclaw-token').fill(GW_TOKEN);
      await card.getByTestId('openclaw-save').click();
      await waitCardState(page, 'connected', 30_000);
      assert.equal((await card.getByTestId('openclaw-headline').textContent()).trim(), 'OpenClaw 2026.9.6');
      assert.equal((await card.getByTestId('openclaw-agent-count').textContent()).trim(), '1 agent, default "main"');
      assert.match(await card.getByTestId('openclaw-agent').textContent(), /main\s+fakeoai\/fake-model\s+\/srv\/openclaw\/workspace/);
      assert.equal((await card.getByTestId('openclaw-live-runs').textContent()).trim(), '0');
      assert.equal((await card.getByTestId('openclaw-pending-approvals').textContent()).trim(), 'none waiting');
      assert.equal(await card.getByTestId('openclaw-retry').count(), 0);

      // MCP: registered on request, then offered again.
      const mcp = card.getByTestId('openclaw-mcp');
      assert.match(await mcp.innerText(), /calls from OpenClaw are unverified callers \(no agent identity\)/);
      assert.equal(await mcp.getAttribute('data-registered'), 'false');
      await card.getByTestId('openclaw-mcp-register').click();
      await card.getByTestId('openclaw-mcp-state').waitFor();
      assert.equal((await card.getByTestId('openclaw-mcp-state').textContent()).trim(), 'Registered ✓');
      assert.equal((await card.getByTestId('openclaw-mcp-register').textContent()).trim(), 'Register again');
      assert.deepEqual(Object.keys(gw.servers).sort(), ['clawboo-memory', 'clawboo-tasks', 'clawboo-tools']);
      await page.waitForFunction(() => /registered/.test(document.querySelector('[data-testid="openclaw-mcp-summary"]')?.textContent ?? '') &&
        !/not registered/.test(document.querySelector('[data-testid="openclaw-mcp-summary"]')?.textContent ?? ''));
      const html = await page.content();
      assert.ok(!html.includes(GW_TOKEN), 'the Gateway token is not on the page');
      for (const s of Object.values(gw.servers)) {
        for (const v of Object.values(s.headers ?? {})) assert.ok(!html.includes(String(v).replace(/^Bearer /, '')), 'no MCP attach token on the page');
      }

      // Activity of a run Clawboo did not start: a call now, its result after the page is open.
      const key = 'agent:main:channel-x';
      gw.broadcast('session.tool', { runId: 'gw-run-1', sessionKey: key, stream: 'tool',
        data: { phase: 'start', name: 'read', toolCallId: 'call_1|fc_1', args: { path: 'notes.txt' } } });
      await card.getByTestId('openclaw-activity-link').click();
      const session = page.locator(`[data-testid="openclaw-session"][data-session-key="${key}"]`);
      await session.waitFor();
      assert.equal((await session.getByTestId('openclaw-session-name').textContent()).trim(), 'channel-x');
      assert.equal((await session.getByTestId('openclaw-session-agent').textContent()).trim(), 'agent main');
      const call = session.getByTestId('tool-call');
      assert.equal(await call.getAttribute('data-state'), 'pending');
      gw.broadcast('session.tool', { runId: 'gw-run-1', sessionKey: key, stream: 'tool',
        data: { phase: 'result', name: 'read', toolCallId: 'call_1|fc_1', result: 'hello from the notes' } });
      await page.waitForSelector(`[data-session-key="${key}"] [data-testid="tool-call"][data-state="done"]`);
      assert.equal(await call.count(), 1, 'the result joined its call');
      await call.locator('summary').click();
      assert.equal((await call.getByTestId('tool-result').textContent()).trim(), 'hello from the notes');

      // An exec approval, then answered in OpenClaw's own UI first.
      await page.getByTestId('nav-approvals').click();
      gw.broadcast('exec.approval.requested', { id: 'gw-ap-1', createdAtMs: Date.now(), expiresAtMs: Date.now() + 120_000,
        request: { command: 'rm -rf build', cwd: '/srv/openclaw/workspace', agentId: 'main', warningText: 'deletes files', security: 'allowlist', ask: 'on-miss' } });
      const ap = page.getByTestId('approval-card');
      await ap.waitFor();
      assert.match(await ap.getByTestId('approval-program').textContent(), /rm -rf build/);
      gw.broadcast('exec.approval.resolved', { id: 'gw-ap-1', decision: 'allow-once' });
      await page.waitForFunction(() => document.querySelector('[data-testid="approval-time-left"]')?.textContent?.trim() === 'answered in OpenClaw');
      assert.equal(await ap.getByTestId('approval-dismiss').count(), 1);
      assert.equal(await ap.getByTestId('approval-allow').count(), 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
