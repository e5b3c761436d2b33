// The OpenClaw UI (issue 9) in Chromium against a real `clawboo serve`: the
// OpenClaw card beside the runtime cards in its unconfigured state, saving
// settings that point at a port nobody listens on (the card turns to its
// error state, the token only ever masked and never on the page), a refused
// URL (the backend's 400 under the form), and the activity page, empty.
//
//     (cd frontend && npm run build) && CGO_ENABLED=0 go build -o /tmp/clawboo . &&
//     (cd frontend && CLAWBOO_BIN=/tmp/clawboo node --test e2e/openclaw.test.mjs)

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';

requireBin();

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
      await page.getByTestId('task-run-agent').selectOption(agent.body.agent.id);
      await page.getByTestId('task-run-substrate').waitFor();
      assert.match(await page.getByTestId('task-run-substrate').textContent(), /OpenClaw agents .* cannot run board tasks/);
      assert.equal(await start.getAttribute('aria-disabled'), 'true');
      await start.click({ force: true });
      assert.equal(await page.getByTestId('task-run-error').count(), 0, 'nothing was sent');
      assert.equal((await api(`/api/board/${task.body.task.id}`)).body.task.status, 'todo');
      await page.getByTestId('task-run-agent').selectOption('');
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
