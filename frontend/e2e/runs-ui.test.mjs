// Browser tests of the Runs page's run pane as a newcomer meets it (issue
// 16): the detail is reachable at 800×600, a run stopped by a cap budget
// says so once and in words, the phase says "writing" while text streams,
// and an error shows once, in words, with its raw detail behind a
// disclosure.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/runs-ui.test.mjs)

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, startServer } from './harness.mjs';
import { apiOk } from './api.mjs';

const SHOTS = process.env.UI_SCREENSHOTS || '';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const api = (method, path, body) => apiOk(server, method, path, body);

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

async function shoot(page, name) {
  if (!SHOTS) return;
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** The visible text of the run pane, squeezed. */
const paneText = async (page) => (await page.getByRole('region', { name: 'Run detail' }).innerText()).replace(/\s+/g, ' ');

describe('runs page', () => {
  test('text said after a tool call starts a new paragraph, never glued to the last word ("root.Added")', async () => {
    const id = await startMock('!ok I looked at the root.\n!toolcall write\n!ok Added the file.');
    await waitEnded(id);
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs/${id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.waitForFunction(() => /Added the file\./.test(document.querySelector('[data-testid="run-output"]')?.textContent ?? ''));
      assert.equal(await page.getByTestId('run-output').textContent(), 'I looked at the root.\n\nAdded the file.');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('at 800×600 the selected run is stacked under the list and its output and Stop are reachable', async () => {
    const id = await startMock('!ok narrow output\n!abort');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs/${id}`, { viewport: { width: 800, height: 600 } });
    try {
      await page.getByTestId('run-output').waitFor();
      const pane = await page.getByRole('region', { name: 'Run detail' }).boundingBox();
      assert.ok(pane && pane.height >= 200, `the run pane has room: ${JSON.stringify(pane)}`);
      const list = await page.locator('[aria-labelledby="recent-runs"]').boundingBox();
      assert.ok(list && pane.y >= list.y + list.height - 1, `the pane is under the list: list ${JSON.stringify(list)} pane ${JSON.stringify(pane)}`);
      // Reachable: scrolled into view, Stop is there to click, and stopping shows the result.
      const abort = page.getByTestId('run-abort');
      await abort.scrollIntoViewIfNeeded();
      const box = await abort.boundingBox();
      assert.ok(box && box.height > 0 && box.y >= 0 && box.y + box.height <= 600, `Stop is on screen: ${JSON.stringify(box)}`);
      assert.equal((await abort.textContent()).trim(), 'Stop', 'one word for a person stopping a run: Stop, not Abort');
      await shoot(page, 'runs-800-live');
      await abort.click();
      await page.getByTestId('run-result').waitFor();
      await page.getByTestId('run-result').scrollIntoViewIfNeeded();
      assert.ok(await page.getByTestId('run-result').isVisible());
      assert.equal(await page.getByTestId('run-outcome').textContent(), 'Stopped');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the phase says writing while text streams', async () => {
    const id = await startMock('!ok streaming words\n!silent 8000');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs/${id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('run-output').filter({ hasText: 'streaming words' }).waitFor();
      await page.waitForFunction(() => /writing/.test(document.querySelector('[data-testid="run-phase"]')?.textContent ?? ''), null, {
        timeout: 5_000,
      }).catch(async () => assert.fail(`the phase reads: ${await page.getByTestId('run-phase').textContent().catch(() => '(none)')}`));
      await api('POST', `/api/runs/${id}/abort`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a run stopped by a cap budget shows one result, in words', async () => {
    const { agent } = await api('POST', '/api/agents', { name: 'Thrifty', runtime: 'clawboo-mock' });
    await api('POST', '/api/budgets', { scope: 'agent', scopeId: agent.id, limitUsd: 0.02, mode: 'cap' });
    const id = await startMock('!ok spending\n!cost 0.03\n!ok more', { agentId: agent.id });
    const run = await waitEnded(id);
    assert.equal(run.status, 'aborted');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs/${id}`, { viewport: { width: 1280, height: 800 } });
    try {
      const result = page.getByTestId('run-result');
      await result.waitFor();
      await page.waitForFunction(() => /Stopped/.test(document.querySelector('[data-testid="run-result"]')?.textContent ?? ''), null, {
        timeout: 5_000,
      }).catch(async () => assert.fail(`the result reads: ${await result.innerText()}`));
      assert.match((await result.innerText()).replace(/\s+/g, ' '), /Stopped: the agent's \$0\.02 budget is used/);
      const text = await paneText(page);
      assert.doesNotMatch(text, /budget_paused/, `no raw scope string: ${text}`);
      assert.doesNotMatch(text, /ended:? ?success|\bsuccess\b/i, `no contradictory success: ${text}`);
      await shoot(page, 'runs-1280-budget');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an error shows once, in words, with the raw detail behind a disclosure', async () => {
    const raw = 'POST "https://api.example/v1/chat": 400 Bad Request {"error":{"message":"model gpt-x does not exist","type":"invalid_request_error"}}';
    const id = await startMock('please fail', { context: `!error ${raw}` });
    await waitEnded(id);
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs/${id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('run-error').waitFor();
      await page.waitForTimeout(300);
      const text = await paneText(page);
      const times = text.split('model gpt-x does not exist').length - 1;
      assert.equal(times, 1, `the error is shown once: ${text}`);
      assert.doesNotMatch(text, /\{"error"/, `no raw JSON on show: ${text}`);
      const details = page.getByTestId('run-error-raw');
      await details.locator('summary').click();
      assert.match(await details.innerText(), /\{"error":\{"message":"model gpt-x does not exist"/);
      await shoot(page, 'runs-1280-error');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
