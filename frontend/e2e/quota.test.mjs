// Browser tests of the quota ledger and governor's UI (issue 19) against a
// real `clawboo serve` with the mock runtime, whose `!quota` line reports a
// usage window as Claude Code or Codex would: the Spend page shows the
// mock's five-hour window at 97 % with its reset, live; with the threshold
// set to 90 % (by keyboard, a bad value refused inline) a board task run on
// the mock is refused with reason quota and shows as deferred, with its
// reason, on its card, in its drawer and on the Spend page, where Cancel
// (asked first) removes it; a quota budget is added and deleted; a fallback
// runtime chosen for an agent and a team survives a reload. Screenshots of
// the Spend page at 1280×800 and 800×600 go to e2e/artifacts; axe checks
// the new states.
//
//   make build-headless && cp build/bin/clawboo-headless /tmp/h4bin && \
//     (cd frontend && CLAWBOO_BIN=/tmp/h4bin node --test e2e/quota.test.mjs)

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { apiAnswer, apiOk } from './api.mjs';
import { axeProblems, waitText } from './checks.mjs';

requireBin();
const ARTIFACTS = process.env.CLAWBOO_ARTIFACTS || join(dirname(fileURLToPath(import.meta.url)), 'artifacts');
const MOCK = 'clawboo-mock';
// bypassCSP: axe is injected as an inline script, which the page's CSP refuses.
const CONTEXT = { viewport: { width: 1280, height: 800 }, bypassCSP: true };

let server;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const api = (method, path, body) => apiOk(server, method, path, body);

const focusedTestid = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');

/** Presses Tab until the element with that test id has focus (at most `max` presses); fails otherwise. */
async function tabTo(page, testid, max = 60) {
  for (let i = 0; i < max; i++) {
    if ((await focusedTestid(page)) === testid) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${testid} (focus on ${await focusedTestid(page)})`);
}

/** Console errors other than the refusals a test provoked on purpose. */
const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|422)/.test(p));

const mockWindow = (page) => page.locator(`[data-testid="quota-window"][data-runtime="${MOCK}"][data-window="five_hour"]`);
const deferral = (page, taskId) => page.locator(`[data-testid="quota-deferral"][data-task-id="${taskId}"]`);


/** A time as the page says it: "14:02" today, "2026-12-04 00:11" on another day (an hour from now may be tomorrow). */
const CLOCK = String.raw`(\d{4}-\d\d-\d\d )?\d\d:\d\d`;
/** A time in the backend's words of a quota reason: "14:20" today, "Fri 00:11" within the week, else "Jan 2 00:11". */
const REASON_CLOCK = String.raw`([A-Z][a-z]{2} (\d{1,2} )?)?\d\d:\d\d`;

describe('quota ledger and governor', () => {
  let taskId;

  test('a mock run reporting its five-hour window shows on the Spend page, live, with its reset', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, CONTEXT);
    try {
      await page.getByTestId('quota-section').waitFor();
      await page.getByTestId('quota-windows-empty').waitFor();
      await waitText(page, page.getByTestId('quota-threshold-value'), /^95 %$/);
      // OpenClaw and Hermes report none, but neither was set up here: nothing is said of them.
      assert.equal(await page.getByTestId('quota-silent').count(), 0, 'no note about runtimes never set up');
      // Once OpenClaw is given a Gateway, that it reports none is said in words.
      await api('PUT', '/api/openclaw/settings', { url: 'ws://127.0.0.1:9' });
      try {
        await page.reload();
        await waitText(page, page.getByTestId('quota-silent'), /OpenClaw reports no usage windows/);
        assert.doesNotMatch(await page.getByTestId('quota-silent').textContent(), /Hermes/, 'Hermes is not installed');
      } finally {
        await api('PUT', '/api/openclaw/settings', { url: '' });
      }
      await page.reload();
      await page.getByTestId('quota-windows-empty').waitFor();

      await api('POST', `/api/runtimes/${MOCK}/run`, { message: 'Check the limits\n!quota five_hour 97 allowed_warning 3600', wait: true });
      // The "quota" event re-reads the ledger: no reload.
      const w = mockWindow(page);
      await w.waitFor({ timeout: 10_000 });
      assert.equal(await w.getByTestId('quota-window-name').textContent(), 'five-hour');
      assert.equal(await w.getByTestId('quota-percent').textContent(), '97 %');
      assert.match(await w.getByTestId('quota-status').textContent(), /Near the limit/);
      assert.match(await w.getByTestId('quota-reset').textContent(), new RegExp(String.raw`^resets in (59m|1h) \(${CLOCK}\)$`));
      assert.match(await w.getByTestId('quota-seen').textContent(), /seen (just now|\d+s ago)/);
      const bar = w.getByRole('progressbar');
      assert.equal(await bar.getAttribute('aria-valuenow'), '97');
      assert.equal(await bar.getAttribute('aria-label'), 'Mock (fault injection) five-hour window used');
      const group = page.locator(`[data-testid="quota-group"][data-runtime="${MOCK}"]`);
      assert.match(await group.locator('h3').textContent(), /Mock \(fault injection\)/);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('the threshold is changed by keyboard; a bad one is refused inline', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, CONTEXT);
    try {
      await mockWindow(page).waitFor();
      await page.getByTestId('quota-threshold-edit').focus();
      await page.keyboard.press('Enter');
      const input = page.getByTestId('quota-threshold-input');
      await input.waitFor();
      assert.equal(await focusedTestid(page), 'quota-threshold-input');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('0');
      await page.keyboard.press('Enter');
      await waitText(page, page.getByTestId('quota-threshold-error'), /from 1 to 100/);
      assert.equal(await input.getAttribute('aria-invalid'), 'true');
      await input.fill('90');
      await page.keyboard.press('Enter');
      await waitText(page, page.getByTestId('quota-threshold-value'), /^90 %$/);
      assert.equal(await page.getByTestId('quota-threshold-error').count(), 0);
      assert.equal((await api('GET', '/api/settings/quota-threshold')).percent, 90);
      // At 97 % the window is over the threshold: its bar is drawn as a warning.
      assert.match(await mockWindow(page).getByRole('progressbar').getAttribute('class'), /\bwarn\b/);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('a board task run on the mock is refused for quota and shows as deferred on its card, drawer and the Spend page', async () => {
    taskId = (await api('POST', '/api/board', { title: 'Summarise the changelog', kind: 'research' })).task.id;
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${encodeURIComponent(taskId)}`, CONTEXT);
    try {
      await page.getByTestId('task-drawer').waitFor();
      await page.getByTestId('task-run-runtime').selectOption(MOCK);
      await page.getByTestId('task-run-start').click();
      const err = page.getByTestId('task-run-error');
      await waitText(page, err, /five-hour window at 97 %/);
      assert.equal(await err.getAttribute('data-reason'), 'quota');
      assert.match(await page.getByTestId('task-run-deferred').textContent(), new RegExp(String.raw`^Deferred until ${CLOCK}`));

      // The quota event reaches the store: the drawer and the card say it waits.
      const wait = page.getByTestId('task-drawer-quota-wait');
      await waitText(page, wait, new RegExp(String.raw`Waiting for Mock \(fault injection\) quota — resumes ${CLOCK} \(in (59m|1h)\)`));
      assert.match(await page.getByTestId('task-drawer-quota-wait-reason').textContent(), /Mock \(fault injection\) five-hour window at 97 %/);
      const card = page.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`);
      await waitText(page, card.getByTestId('task-quota-wait'), /Waiting for Mock \(fault injection\) quota — resumes/);
      assert.equal(await card.getAttribute('data-status'), 'todo');
      await page.screenshot({ path: join(ARTIFACTS, 'quota-board-drawer-1280x800.png') });

      await page.goto(`${server.url}/#/spend`);
      const row = deferral(page, taskId);
      await row.waitFor();
      assert.equal(await row.getByTestId('quota-deferral-title').textContent(), 'Summarise the changelog');
      assert.equal(await row.getByTestId('quota-deferral-title').getAttribute('href'), `#/board/${encodeURIComponent(taskId)}`);
      assert.match(await row.getByTestId('quota-deferral-reason').textContent(), new RegExp(String.raw`five-hour window at 97 %, resets ${REASON_CLOCK}`));
      assert.match(await row.getByTestId('quota-deferral-until').textContent(), new RegExp(String.raw`resumes at ${CLOCK} \(in (59m|1h)\)`));
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('screenshots and axe of the Spend page with windows and a deferral, at both sizes', async () => {
    for (const [name, viewport] of [
      ['1280x800', { width: 1280, height: 800 }],
      ['800x600', { width: 800, height: 600 }],
    ]) {
      const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, { viewport, bypassCSP: true });
      try {
        await deferral(page, taskId).waitFor();
        await mockWindow(page).waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(ARTIFACTS, `quota-spend-${name}.png`) });
        await page.getByTestId('quota-deferred-section').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(ARTIFACTS, `quota-spend-deferred-${name}.png`) });
        assert.deepEqual(await axeProblems(page), [], `axe at ${name}`);
        assert.deepEqual(unexpected(problems), []);
      } finally {
        await context.close();
      }
    }
  });

  test('Cancel, asked first and done by keyboard, removes the deferral; the task stays in To do', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, CONTEXT);
    try {
      const row = deferral(page, taskId);
      await row.waitFor();
      await row.getByTestId('quota-deferral-title').focus();
      await page.keyboard.press('Tab');
      assert.equal(await focusedTestid(page), 'quota-deferral-cancel');
      await page.keyboard.press('Enter');
      const dialog = page.getByTestId('quota-cancel-dialog');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /Summarise the changelog.*stays in To do/s);
      // Focus starts on the safe answer; the axe check covers the open dialog.
      assert.equal(await focusedTestid(page), 'quota-cancel-keep');
      // Two answers that both say "Cancel" would be a riddle.
      assert.equal((await page.getByTestId('quota-cancel-keep').textContent()).trim(), 'Keep waiting');
      assert.deepEqual(await axeProblems(page), []);
      await page.keyboard.press('Tab');
      assert.equal(await focusedTestid(page), 'quota-cancel-confirm');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      await row.waitFor({ state: 'detached' });
      await page.getByTestId('quota-deferred-empty').waitFor();
      assert.deepEqual((await api('GET', '/api/quota')).deferred, []);
      assert.equal((await api('GET', `/api/board/${encodeURIComponent(taskId)}`)).task.status, 'todo');

      await page.goto(`${server.url}/#/board`);
      const card = page.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`);
      await card.waitFor();
      await page.waitForTimeout(300);
      assert.equal(await card.getByTestId('task-quota-wait').count(), 0);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('a quota budget for a team is added by keyboard and deleted', async () => {
    const team = (await api('POST', '/api/teams', { name: 'Quota Crew' })).team;
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, CONTEXT);
    try {
      const section = page.getByTestId('quota-limits-section');
      await section.getByTestId('quota-limits-empty').waitFor();
      // Saving with nothing chosen says what is missing.
      await section.getByTestId('quota-limit-save').click();
      await waitText(page, section.getByTestId('quota-limit-error'), /Choose the team/);

      await section.getByTestId('quota-limit-scope').focus();
      await page.keyboard.press('Tab');
      assert.equal(await focusedTestid(page), 'quota-limit-target');
      await page.keyboard.type('Quota');
      await section.getByTestId('quota-limit-target-option').first().waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      assert.equal(await section.getByTestId('quota-limit-target').inputValue(), 'Quota Crew');
      await page.keyboard.press('Tab');
      assert.equal(await focusedTestid(page), 'quota-limit-runtime');
      await section.getByTestId('quota-limit-runtime').selectOption(MOCK);
      await section.getByTestId('quota-limit-window').selectOption('seven_day');
      await section.getByTestId('quota-limit-percent').fill('80');
      await section.getByTestId('quota-limit-percent').focus();
      await page.keyboard.press('Enter');

      const row = section.locator(`[data-testid="quota-limit"][data-scope-id="${team.id}"]`);
      await row.waitFor();
      assert.equal(await row.getByTestId('quota-limit-name').textContent(), 'Quota Crew');
      assert.equal(await row.getByTestId('quota-limit-words').textContent(), 'at most 80 % of the weekly window on Mock (fault injection)');
      const limits = (await api('GET', '/api/quota')).limits;
      assert.equal(limits.length, 1);
      assert.deepEqual(
        { scope: limits[0].scope, scopeId: limits[0].scopeId, runtime: limits[0].runtime, window: limits[0].window, maxPercent: limits[0].maxPercent },
        { scope: 'team', scopeId: team.id, runtime: MOCK, window: 'seven_day', maxPercent: 80 },
      );

      // A reload reads it back.
      await page.reload();
      await row.waitFor();

      await row.getByTestId('quota-limit-delete').click();
      const dialog = page.getByTestId('quota-limit-delete-dialog');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /Quota Crew/);
      await page.getByTestId('quota-limit-delete-confirm').click();
      await row.waitFor({ state: 'detached' });
      await section.getByTestId('quota-limits-empty').waitFor();
      assert.deepEqual((await api('GET', '/api/quota')).limits, []);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('a fallback runtime chosen for an agent and for a team survives a reload', async () => {
    const agent = (await api('POST', '/api/agents', { name: 'Fallback Bot', runtime: MOCK })).agent;
    const team = (await api('POST', '/api/teams', { name: 'Fallback Team' })).team;
    // The backend refuses a fallback equal to the agent's own runtime.
    assert.equal((await apiAnswer(server, 'PATCH', `/api/agents/${agent.id}`, { fallbackRuntime: MOCK })).status, 400);
    const { page, context, problems } = await openPage(browser, `${server.url}/#/agents/${encodeURIComponent(agent.id)}`, CONTEXT);
    try {
      const openEditor = async () => {
        await page.getByTestId('agent-edit').click();
        await page.getByTestId('agent-dialog').waitFor();
      };
      await openEditor();
      const select = page.getByTestId('agent-fallback-runtime');
      assert.equal(await select.inputValue(), '');
      const offered = await select.locator('option').evaluateAll((os) => os.map((o) => o.value));
      assert.ok(!offered.includes(MOCK), `the agent's own runtime is not offered: ${offered}`);
      assert.ok(offered.includes('clawboo-native'), `native is offered: ${offered}`);
      assert.deepEqual(await axeProblems(page), []);
      await select.focus();
      await select.selectOption('clawboo-native');
      await page.getByTestId('agent-save').click();
      await page.getByTestId('agent-dialog').waitFor({ state: 'hidden' });
      assert.equal((await api('GET', '/api/agents')).agents.find((a) => a.id === agent.id).fallbackRuntime, 'clawboo-native');

      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await openEditor();
      assert.equal(await page.getByTestId('agent-fallback-runtime').inputValue(), 'clawboo-native');
      // Back to none.
      await page.getByTestId('agent-fallback-runtime').selectOption('');
      await page.getByTestId('agent-save').click();
      await page.getByTestId('agent-dialog').waitFor({ state: 'hidden' });
      assert.equal((await api('GET', '/api/agents')).agents.find((a) => a.id === agent.id).fallbackRuntime ?? null, null);

      await page.goto(`${server.url}/#/teams`);
      const teamCard = page.locator(`[data-testid="team-card"][data-team-id="${team.id}"]`);
      const teamSelect = teamCard.getByTestId('team-fallback-runtime');
      await teamSelect.waitFor();
      assert.equal(await teamSelect.inputValue(), '');
      await teamSelect.selectOption('clawboo-native');
      await waitText(page, teamCard, /runs on this runtime instead/);
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await teamSelect.waitFor();
      assert.equal(await teamSelect.inputValue(), 'clawboo-native');
      assert.equal((await api('GET', `/api/teams/${team.id}`)).team.fallbackRuntime, 'clawboo-native');
      assert.deepEqual(await axeProblems(page), [], 'axe on the Teams page with a fallback chosen');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('the reset countdown ticks down by the minute', async () => {
    const context = await browser.newContext(CONTEXT);
    try {
      const page = await context.newPage();
      // The page's clock starts at the real time, so the server's reset time stays an hour away.
      await page.clock.install({ time: Date.now() });
      await page.goto(`${server.url}/#/spend`);
      const reset = mockWindow(page).getByTestId('quota-reset');
      await reset.waitFor({ timeout: 10_000 });
      const minutes = (t) => {
        const m = /resets in (?:(\d+)h ?)?(?:(\d+)m)?/.exec(t);
        assert.ok(m, `a countdown: ${t}`);
        return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
      };
      const before = minutes(await reset.textContent());
      await page.clock.fastForward('03:00');
      await waitText(page, reset, new RegExp(`resets in ${before - 3 >= 60 ? '1h' : `${before - 3}m`}`));
      assert.equal(minutes(await reset.textContent()), before - 3);
    } finally {
      await context.close();
    }
  });

  test('keyboard only: Tab reaches every quota control on the Spend page in order', async () => {
    const { page, context } = await openPage(browser, `${server.url}/#/spend`, CONTEXT);
    try {
      await mockWindow(page).waitFor();
      await page.locator('main').focus().catch(() => {});
      for (const id of ['quota-threshold-edit', 'quota-limit-scope', 'quota-limit-target', 'quota-limit-runtime', 'quota-limit-window', 'quota-limit-percent', 'quota-limit-save']) {
        await tabTo(page, id);
      }
    } finally {
      await context.close();
    }
  });

  test('a rejection with no reset time says when it clears, and Clear, asked first and done by keyboard, ends it', async () => {
    // A 429 with no retry-after; the run that saw it failed (a success would clear it).
    await apiAnswer(server, 'POST', `/api/runtimes/${MOCK}/run`, { message: 'Call the provider\n!quota requests 100 rejected\n!error provider said 429', wait: true });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, CONTEXT);
    try {
      const w = page.locator(`[data-testid="quota-window"][data-runtime="${MOCK}"][data-window="requests"]`);
      await w.waitFor();
      assert.match(await w.getByTestId('quota-reset').textContent(), new RegExp(String.raw`^no reset time reported: clears by ${CLOCK} if nothing says otherwise$`));
      // Only a rejected window offers Clear.
      assert.equal(await mockWindow(page).getByTestId('quota-clear').count(), 0);
      await w.getByTestId('quota-clear').focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByTestId('quota-clear-dialog');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /stops holding work back now/);
      assert.equal(await focusedTestid(page), 'quota-clear-cancel');
      await page.keyboard.press('Tab');
      assert.equal(await focusedTestid(page), 'quota-clear-confirm');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      await w.waitFor({ state: 'detached' });
      const left = (await api('GET', '/api/quota')).windows.map((x) => x.window);
      assert.ok(!left.includes('requests') && left.includes('five_hour'), JSON.stringify(left));
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });
});
