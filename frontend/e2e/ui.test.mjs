// Browser tests: the built UI, served by a real `clawboo serve`, in Chromium.
// They prove what unit tests cannot: events reach the page live over the
// real stream, abort and reload work end to end, and floods stay responsive.
//
//   (cd frontend && npm run build) && go build -o /tmp/clawboo . && \
//     (cd frontend && CLAWBOO_BIN=/tmp/clawboo npm run test:e2e)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';

// Fail the whole file at once, with the how-to, rather than every test.
requireBin();

let server;
let browser;

useSuite({}, (s) => ({ server, browser } = s));

/** The page's view of a run, for assertions and for failure messages. */
function snapshot(page) {
  return page.evaluate(() => {
    const t = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    return {
      hash: location.hash,
      status: t('run-status'),
      output: t('run-output'),
      summary: t('run-summary'),
      error: t('run-error'),
      abort: !!document.querySelector('[data-testid="run-abort"]'),
      tools: [...document.querySelectorAll('[data-testid="tool-call"]')].map(
        (e) => `${e.getAttribute('data-tool-name')}:${e.getAttribute('data-state')}`,
      ),
    };
  });
}

/** Waits until pred(snapshot) holds, checked in the page every frame; fails with the last snapshot. */
async function until(page, what, pred, timeout = 8_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await snapshot(page);
    if (pred(last)) return last;
    await page.waitForTimeout(20);
  }
  const shown = { ...last, output: last?.output?.length > 200 ? `${last.output.slice(0, 200)}… (${last.output.length} chars)` : last?.output };
  assert.fail(`timed out waiting for ${what}; page shows ${JSON.stringify(shown)}`);
}

/** Starts a mock run through the form and waits for its pane. */
async function startRun(page, message, context = '') {
  await page.getByTestId('nav-runs').click();
  await page.waitForSelector('[data-testid="run-runtime"] option[value="clawboo-mock"]', { state: 'attached' });
  await page.getByTestId('run-runtime').selectOption('clawboo-mock');
  await page.getByTestId('run-message').fill(message);
  await page.getByTestId('run-context').fill(context);
  await page.getByTestId('run-start').click();
  await page.waitForFunction(() => /^#\/runs\/[^/]+$/.test(location.hash), null, { timeout: 5_000 });
  const id = await page.evaluate(() => decodeURIComponent(location.hash.split('/')[2]));
  await page.waitForFunction(
    (id) => document.querySelector('[data-testid="run-id"]')?.textContent === id,
    id,
    { timeout: 5_000 },
  );
  return id;
}

describe('clawboo web UI', { timeout: 60_000 }, () => {
  test('streams a run live: text arrives while it is still running', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      const id = await startRun(page, '!ok first\n!silent 1500\n!ok second');
      // Evaluated atomically in the page: "first" is shown while the run is
      // still running and before "second" exists. A page that only showed
      // the finished run would never satisfy this.
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid="run-output"]')?.textContent === 'first' &&
          document.querySelector('[data-testid="run-status"]')?.textContent === 'running' &&
          !!document.querySelector('[data-testid="run-abort"]'),
        null,
        { timeout: 1_400, polling: 'raf' },
      );
      const done = await until(page, 'succeeded', (s) => s.status === 'succeeded');
      assert.equal(done.output, 'firstsecond');
      assert.equal(done.summary, 'first\nsecond'); // the mock joins its texts
      assert.equal(done.abort, false, 'no Abort button once the run is over');
      // The list picked the run up live from /api/events.
      const row = page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
      await row.waitFor({ timeout: 5_000 });
      await page.waitForFunction(
        (id) => document.querySelector(`[data-run-id="${id}"]`)?.textContent?.includes('succeeded'),
        id,
        { timeout: 5_000 },
      );
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('aborts a run from the UI', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      await startRun(page, '!ok waiting\n!abort');
      await until(page, 'running with Abort', (s) => s.status === 'running' && s.abort && s.output === 'waiting');
      await page.getByTestId('run-abort').click();
      const s = await until(page, 'aborted', (s) => s.status === 'aborted');
      assert.equal(s.abort, false);
      assert.equal(await page.getByTestId('run-result').getAttribute('data-reason'), 'aborted');
      assert.equal(await page.getByTestId('run-outcome').textContent(), 'Stopped');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('shows tool calls with results, and a call without a result as pending', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      // The mock reads directives from the context too: this proves the
      // context field reaches the run.
      await startRun(page, '!loop 2', '!toolcall deploy');
      const s = await until(page, 'three tool calls and success', (s) => s.status === 'succeeded' && s.tools.length === 3);
      assert.deepEqual(s.tools, ['noop:done', 'noop:done', 'deploy:pending']);
      assert.equal(await page.locator('[data-testid="tool-call"][data-tool-name="deploy"]').count(), 1);
      assert.equal(s.summary, 'mock run complete');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('shows a failed run with the host’s message', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      await startRun(page, '!error boom');
      const s = await until(page, 'failed', (s) => s.status === 'failed' && s.error !== null);
      assert.match(s.error, /runtime ended without a result: boom/);
      // Said once: the fatal event and the summary repeat the error, so only the error shows.
      assert.equal(await page.getByTestId('run-event-error').count(), 0);
      assert.equal(s.summary, null);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('resumes after a reload mid-run without losing or repeating text', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      const id = await startRun(page, '!ok alpha \n!silent 1500\n!ok beta');
      await until(page, 'alpha while running', (s) => s.output === 'alpha' && s.status === 'running');
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      const mid = await until(page, 'replayed alpha', (s) => s.output === 'alpha');
      assert.equal(mid.hash, `#/runs/${id}`);
      assert.equal(mid.status, 'running', 'the reload landed mid-run');
      const s = await until(page, 'succeeded after reload', (s) => s.status === 'succeeded');
      assert.equal(s.output, 'alphabeta');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('shows the mock as a test runtime with nothing to set up, and offers only runnable runtimes', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      // The run form offers what this build can run: the native runtime (its
      // own agent loop, no CLI) and the mock.
      await page.waitForSelector('[data-testid="run-runtime"] option[value="clawboo-mock"]', { state: 'attached' });
      const options = await page.locator('[data-testid="run-runtime"] option').evaluateAll((els) => els.map((e) => e.value));
      assert.deepEqual(options, ['clawboo-native', 'clawboo-mock']);

      await page.getByTestId('nav-runtimes').click();
      const mock = page.locator('[data-testid="runtime-card"][data-runtime-id="clawboo-mock"]');
      await mock.waitFor();
      assert.equal(await mock.getAttribute('data-state'), 'ready');
      // Every catalog runtime has a card, whatever its state.
      const cards = await page
        .locator('[data-testid="runtime-card"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-runtime-id')));
      for (const id of ['claude-code', 'codex', 'hermes', 'clawboo-native']) assert.ok(cards.includes(id), `${id} in ${cards}`);
      // The mock is never offered to install or connect.
      for (const id of ['install-button', 'key-input', 'connect-button', 'provider-select', 'disconnect-button', 'login-command']) {
        assert.equal(await mock.getByTestId(id).count(), 0, `the mock card has no ${id}`);
      }
      assert.equal(await page.locator('[data-testid="available-card"]').count(), 0, 'no "available to add" cards');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a flood of deltas completes and the page stays responsive', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      // Record main-thread stalls while the flood renders.
      await page.evaluate(() => {
        window.__longest = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
        }).observe({ type: 'longtask', buffered: false });
      });
      const started = Date.now();
      await startRun(page, '!flood 20000');
      const s = await until(page, 'flood done', (s) => s.status === 'succeeded', 10_000);
      // A final status comes with the complete output: all of it, or its
      // tail plus a note of how much is hidden. (Compare lengths: a failed
      // assertion on 20,000-character strings is unreadable.)
      assert.ok(/^x*$/.test(s.output), 'the output is only the flood');
      const note = page.locator('[data-testid="run-output-truncated"]');
      if ((await note.count()) === 0) {
        assert.equal(s.output.length, 20_000);
      } else {
        const hidden = Number((await note.textContent()).replace(/[^0-9]/g, ''));
        assert.equal(hidden + s.output.length, 20_000);
      }
      assert.ok(Date.now() - started < 10_000);
      const longest = await page.evaluate(() => window.__longest);
      assert.ok(longest < 500, `the main thread stalled for ${longest} ms`);
      // Still responsive: navigation renders at once.
      await page.getByTestId('nav-runtimes').click();
      await page.locator('[data-testid="runtime-card"]').first().waitFor({ timeout: 2_000 });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an unknown run shows the backend’s error in words', async () => {
    const { page, context } = await openPage(browser, `${server.url}/#/runs/no-such-run`);
    try {
      const msg = await page.getByTestId('run-load-error').textContent({ timeout: 5_000 });
      assert.match(msg, /unknown run 'no-such-run'/);
    } finally {
      await context.close();
    }
  });

  test('a start the backend refuses shows its reason in words', async () => {
    const context = await browser.newContext();
    try {
      // A runtime list that went stale: it offers a runtime the backend no
      // longer has, so starting a run on it gets a 404.
      await context.route('**/api/runtimes', async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        const mock = body.runtimes.find((r) => r.id === 'clawboo-mock');
        const gone = { ...mock, id: 'gone-runtime', name: 'Gone' };
        await route.fulfill({ response: res, json: { ...body, runtimes: [gone, ...body.runtimes] } });
      });
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForSelector('[data-testid="run-runtime"] option[value="gone-runtime"]', { state: 'attached' });
      await page.getByTestId('run-runtime').selectOption('gone-runtime');
      await page.getByTestId('run-message').fill('hello');
      await page.getByTestId('run-start').click();
      const msg = await page.getByTestId('run-form-error').textContent({ timeout: 5_000 });
      assert.equal(msg, "unknown runtime 'gone-runtime'");
      assert.equal(await page.evaluate(() => location.hash), '', 'stayed on the form');
    } finally {
      await context.close();
    }
  });

  test('pages through older runs with "load more"', async () => {
    // Seed more runs than one page through the API (no Origin: allowed).
    const api = await browser.newContext();
    try {
      for (let i = 0; i < 55; i++) {
        const res = await api.request.post(`${server.url}/api/runtimes/clawboo-mock/run`, {
          data: { message: `!ok seed ${i}`, wait: false },
        });
        assert.equal(res.status(), 202);
      }
      const total = (await (await api.request.get(`${server.url}/api/runs?limit=200`)).json()).runs.length;
      const { page, context, problems } = await openPage(browser, `${server.url}/#/runs`);
      try {
        const rows = page.locator('[data-testid="run-row"]');
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length >= 50);
        assert.equal(await rows.count(), 50);
        await page.getByTestId('runs-load-more').click();
        await page.waitForFunction(
          (n) => document.querySelectorAll('[data-testid="run-row"]').length === n,
          Math.min(total, 100),
          { timeout: 5_000 },
        );
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    } finally {
      await api.close();
    }
  });
});
