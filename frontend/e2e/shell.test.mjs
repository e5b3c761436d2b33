// Browser tests of the app shell against a real `clawboo serve` (mock
// runtime): the tab title counts the approvals that wait ("(1) Clawboo"), a
// request is made the way an agent makes one (clawboo-tools' delete_path
// over HTTP MCP, as e2e/approvals.test.mjs does); the sidebar shows the runs
// running and collapses to a menu below 900 px; an unknown route shows a
// not-found page; the Runs page remembers its runtime; the OpenClaw page
// says "Not set up" when no Gateway is configured; the notification prompt
// is offered on one page only; and the Spend page names agents, teams and
// tasks, its "Per task" card inside its column at 1280×800.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/shell.test.mjs)

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { connectTools } from './mcptools.mjs';

const api = (method, path, body) => apiOk(server, method, path, body);

const bin = requireBin();
// Screenshots for a person to look at, beside e2e/a11y.test.mjs's (git-ignored).
const ARTIFACTS = process.env.CLAWBOO_ARTIFACTS || join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

let server;
let browser;
let home;
/** clawboo-tools: call(method, params, notification). */
let mcp;

before(async () => {
  // A fresh HOME: delete_path only ever touches folders made here.
  home = await mkdtemp(join(tmpdir(), 'clawboo-shell-home-'));
  const env = { ...process.env, HOME: home, CLAWBOO_VAULT: 'file' };
  server = await startServer({ env });
  browser = await launchBrowser();
  mcp = await connectTools(bin, server, env);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const startMock = async (message, extra = {}) =>
  (await api('POST', '/api/runtimes/clawboo-mock/run', { message, wait: false, ...extra })).runId;

async function waitEnded(id) {
  for (let i = 0; i < 200; i++) {
    const run = await api('GET', `/api/runs/${id}`);
    if (run.endedAt) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`run ${id} never ended`);
}

const WIDE = { viewport: { width: 1280, height: 800 } };
const NARROW = { viewport: { width: 800, height: 600 } };

describe('the app shell', () => {
  test('the tab title counts the approvals that wait', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      assert.equal(await page.title(), 'Clawboo');
      const path = join(home, 'scratch-title');
      await mkdir(path, { recursive: true });
      const answer = mcp('tools/call', { name: 'delete_path', arguments: { path, why: 'tidy up' } });
      answer.catch(() => {});
      await page.waitForFunction(() => document.title === '(1) Clawboo', null, { timeout: 10_000 });
      let id = '';
      for (let i = 0; i < 100 && !id; i++) {
        id = (await api('GET', '/api/approvals')).approvals.find((a) => a.args?.includes(path))?.id ?? '';
        if (!id) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(id, 'the approval is pending');
      await api('POST', `/api/approvals/${id}/resolve`, { decision: 'deny' });
      await answer;
      await page.waitForFunction(() => document.title === 'Clawboo', null, { timeout: 10_000 });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the sidebar counts the runs running', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      assert.equal(await page.getByTestId('runs-running').count(), 0);
      const runId = await startMock('!ok working\n!silent 60000');
      await page.getByTestId('runs-running').waitFor();
      assert.equal((await page.getByTestId('runs-running').textContent()).trim(), '1 running');
      assert.equal(await page.getByTestId('nav-runs').getAttribute('aria-label'), 'Runs, 1 running');
      await api('POST', `/api/runs/${runId}/abort`);
      await page.getByTestId('runs-running').waitFor({ state: 'detached' });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('below 900 px the sidebar collapses to a menu', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, NARROW);
    try {
      const menu = page.getByTestId('nav-menu');
      assert.ok(await menu.isVisible(), 'the menu button shows');
      assert.equal(await page.getByTestId('nav-spend').isVisible(), false, 'the links are folded away');
      const box = await page.getByTestId('sidebar').boundingBox();
      assert.ok(box.width <= 60, `the rail is narrow: ${box.width}px`);
      await menu.click();
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'sidebar-menu-800x600.png') });
      await page.getByTestId('nav-spend').click();
      await page.waitForFunction(() => location.hash === '#/spend');
      await page.getByTestId('nav-spend').waitFor({ state: 'hidden' });
      await menu.click();
      await page.keyboard.press('Escape');
      await page.getByTestId('nav-spend').waitFor({ state: 'hidden' });
      // Wide again: the full sidebar, no menu.
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.ok(await page.getByTestId('nav-spend').isVisible());
      assert.equal(await menu.isVisible(), false);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('notifications are offered once, and "Not now" is remembered', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      const permission = await page.evaluate(() => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission));
      assert.equal(permission, 'default', 'a fresh profile has not been asked');
      await page.getByTestId('notify-prompt').waitFor();
      await page.getByTestId('notify-dismiss').click();
      await page.getByTestId('notify-prompt').waitFor({ state: 'detached' });
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await page.getByTestId('nav-board').waitFor();
      assert.equal(await page.getByTestId('notify-prompt').count(), 0, 'not asked again');
      assert.ok(await page.evaluate(() => localStorage.getItem('clawboo.notifications.asked')));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the notification prompt is offered on one page, not on every page', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      await page.getByTestId('notify-prompt').waitFor();
      // Left unanswered for another page: it does not follow the person, nor come back on the next load.
      await page.getByTestId('nav-runs').click();
      await page.waitForFunction(() => location.hash === '#/runs');
      await page.getByTestId('notify-prompt').waitFor({ state: 'detached' });
      await page.getByTestId('nav-spend').click();
      await page.waitForFunction(() => location.hash === '#/spend');
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await page.getByTestId('nav-board').waitFor();
      assert.equal(await page.getByTestId('notify-prompt').count(), 0, 'not offered again');
      assert.ok(await page.evaluate(() => localStorage.getItem('clawboo.notifications.asked')));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an unknown route shows a not-found page', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/no/such-page`, WIDE);
    try {
      await page.getByTestId('not-found').waitFor();
      assert.equal(await page.getByTestId('not-found-path').textContent(), '#/no/such-page');
      assert.equal(await page.getByTestId('run-runtime').count(), 0, 'not the runs page');
      await page.getByTestId('not-found').getByRole('link', { name: 'Open the board' }).click();
      await page.waitForFunction(() => location.hash === '#/board');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the Runs page remembers its runtime', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs`, WIDE);
    try {
      const select = page.getByTestId('run-runtime');
      await page.waitForSelector('[data-testid="run-runtime"]:not([disabled])');
      const values = await select.locator('option').evaluateAll((os) => os.map((o) => o.value));
      assert.ok(values.includes('clawboo-mock'), `options ${values}`);
      const pick = values.length > 1 ? values.find((v) => v !== values[0]) : values[0];
      await select.selectOption(pick);
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForSelector('[data-testid="run-runtime"]:not([disabled])');
      assert.equal(await select.inputValue(), pick);
      assert.equal(await page.evaluate(() => localStorage.getItem('clawboo.runs.runtime')), pick);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the OpenClaw page says "Not set up" when no Gateway is configured', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/openclaw`, WIDE);
    try {
      await page.waitForSelector('[data-testid="openclaw-activity-live"][data-setup="none"]');
      const line = (await page.getByTestId('openclaw-activity-live').textContent()).trim();
      assert.match(line, /^Not set up/);
      assert.doesNotMatch(line, /Live/);
      assert.equal(await page.getByTestId('openclaw-activity-setup').getAttribute('href'), '#/runtimes');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the Spend page names agents and teams', async () => {
    const { agent } = await api('POST', '/api/agents', { name: 'Spendthrift', runtime: 'clawboo-mock' });
    const runId = await startMock('!ok paid\n!cost 0.25', { agentId: agent.id });
    await waitEnded(runId);
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, WIDE);
    try {
      const row = page.locator(`[data-testid="spend-by-agent-row"][data-key="${agent.id}"]`);
      await row.waitFor();
      assert.match(await row.textContent(), /Spendthrift/);
      assert.match(await row.textContent(), /\$0\.25 \(reported\)/);
      assert.doesNotMatch(await row.locator('.name').textContent(), new RegExp(agent.id));
      assert.equal(await row.getByRole('link', { name: 'Spendthrift' }).getAttribute('href'), `#/agents/${encodeURIComponent(agent.id)}`);
      await page.getByTestId('spend-by-team').waitFor();
      await page.getByTestId('spend-by-task').waitFor();
      assert.match(await page.getByTestId('spend-by-team').textContent(), /No team/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the Spend page’s “Per task” card stays inside its column at 1280×800', async () => {
    const title = 'Rewrite the onboarding walkthrough so that every step names what the person sees next and why';
    const { task } = await api('POST', '/api/board', { title, kind: 'research', description: '!ok done\n!cost 1234.5678' });
    await waitEnded(await startMock('', { taskId: task.id }));
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, WIDE);
    try {
      const row = page.locator(`[data-testid="spend-by-task-row"][data-key="${task.id}"]`);
      await row.waitFor();
      await page.waitForFunction((t) => /Rewrite the onboarding/.test(document.querySelector(`[data-testid="spend-by-task-row"][data-key="${t}"] .name`)?.textContent ?? ''), task.id);
      // Every part of the card (its rows, figures and heading) ends inside the card, and the card inside the page.
      const over = await page.evaluate(() => {
        const card = document.querySelector('[data-testid="spend-by-task"]').closest('section');
        const box = card.getBoundingClientRect();
        const page = document.querySelector('.spend').getBoundingClientRect();
        const out = [];
        if (box.right > page.right + 0.5) out.push(`the card ends at ${box.right}, past the page at ${page.right}`);
        if (card.scrollWidth > card.clientWidth + 1) out.push(`the card scrolls: ${card.scrollWidth} > ${card.clientWidth}`);
        for (const el of card.querySelectorAll('*')) {
          const r = el.getBoundingClientRect();
          if (r.width > 0 && r.right > box.right + 0.5) out.push(`${el.className || el.tagName} ends at ${r.right}, past the card at ${box.right}`);
        }
        return out;
      });
      assert.deepEqual(over, []);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'spend-per-task-1280x800.png') });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
