// Browser tests of the Routines page (issue 17) against a real `clawboo
// serve` with the mock runtime: the editor previews a spec in words with
// its next five times, refuses an invalid one with the reason, and saves a
// routine that is listed with its next run; Run now fires a mock routine
// whose history shows the fire running, then succeeded, linked to its run
// (and the link opens it); pause and resume change the status shown;
// delete asks first. All by keyboard where a person would use it.
//
//   make build-headless && cp build/bin/clawboo-headless /tmp/routines-bin && \
//     (cd frontend && CLAWBOO_BIN=/tmp/routines-bin node --test e2e/routines.test.mjs)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { apiOk } from './api.mjs';
import { axeProblems, waitText } from './checks.mjs';

requireBin();

/** The browser's timezone in these tests: the editor's default, and what the routine is saved with. */
const ZONE = 'Europe/Berlin';
// bypassCSP: axe is injected as an inline script, which the page's CSP refuses.
const CONTEXT = { viewport: { width: 1280, height: 800 }, timezoneId: ZONE, bypassCSP: true };

let server;
let browser;
let agent;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  agent = (await apiOk(server, 'POST', '/api/agents', { name: 'Routine Bot', runtime: 'clawboo-mock' })).agent;
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const api = (method, path, body) => apiOk(server, method, path, body);

const focusedTestid = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
const card = (page, id) => page.locator(`[data-testid="routine"][data-schedule-id="${id}"]`);

/** Console errors other than the refusals a test provoked on purpose. */
const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|409)/.test(p));

/** A routine made through the API, for the tests that start from one. */
async function routine(title, description, spec = '@daily') {
  const { schedule } = await api('POST', '/api/schedules', {
    agentId: agent.id,
    spec,
    timezone: ZONE,
    template: { title, description, kind: 'research' },
  });
  return schedule;
}

describe('routines', { timeout: 90_000 }, () => {
  test('the editor previews a spec in words and five times, refuses an invalid one, and saves a routine listed with its next run', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/routines`, CONTEXT);
    try {
      await page.getByTestId('routines-page').waitFor();
      assert.equal(await page.getByTestId('nav-routines').getAttribute('aria-current'), 'page');
      await page.getByTestId('routines-empty').waitFor();
      // OpenClaw was never set up here: nothing is said of its Gateway (the last test sets one up).
      assert.equal(await page.getByTestId('gateway-jobs').count(), 0);

      // Escape closes the editor and focus goes back to the button that opened it.
      await page.getByTestId('routine-new').focus();
      await page.keyboard.press('Enter');
      const editor = page.getByTestId('routine-editor');
      await editor.waitFor();
      assert.equal(await focusedTestid(page), 'routine-agent-input', 'focus starts on the agent');
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'hidden' });
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'routine-new');

      await page.keyboard.press('Enter');
      await editor.waitFor();
      assert.equal(await page.getByTestId('routine-timezone').inputValue(), ZONE, "the timezone defaults to the browser's");

      // The agent by name, from the combobox, by keyboard.
      await page.keyboard.type('routine');
      await page.getByTestId('routine-agent-input-options').waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      assert.equal(await page.getByTestId('routine-agent-input').inputValue(), 'Routine Bot · clawboo-mock');

      // A valid spec: its words and the next five times.
      await page.getByTestId('routine-spec').fill('0 9 * * 1-5');
      const words = page.getByTestId('routine-preview-words');
      await words.waitFor();
      assert.ok((await words.textContent()).trim().length > 0, 'the spec in words');
      const times = page.locator('[data-testid="routine-preview-next"] li');
      assert.equal(await times.count(), 5, 'the next five times');
      for (const t of await times.allTextContents()) assert.match(t, /09:00/, `weekdays at 09:00 in ${ZONE}, the browser's zone too`);
      assert.equal(await page.getByTestId('routine-preview').getAttribute('aria-live'), 'polite');
      assert.deepEqual(await axeProblems(page), [], 'axe with the editor open');

      // An invalid spec: the reason, inline, and Save is refused.
      await page.getByTestId('routine-spec').fill('every full moon');
      const reason = page.getByTestId('routine-preview-error');
      await waitText(page, reason, /^\s*Not a valid schedule: \S/);
      assert.equal(await page.getByTestId('routine-spec').getAttribute('aria-invalid'), 'true');
      await page.getByTestId('routine-task-title').fill('Morning triage');
      await page.getByTestId('routine-save').click();
      await waitText(page, page.getByTestId('routine-editor-error'), /Fix the schedule first: \S/);
      assert.ok(await editor.isVisible(), 'the editor stays open');
      assert.equal((await api('GET', '/api/schedules')).schedules.length, 0, 'nothing was saved');

      // A quick pick, then Enter in a field saves.
      await page.locator('[data-testid="routine-pick"][data-spec="0 9 * * *"]').click();
      assert.equal(await page.getByTestId('routine-spec').inputValue(), '0 9 * * *');
      await page.getByTestId('routine-preview-words').waitFor();
      assert.equal(await page.locator('[data-testid="routine-preview-next"] li').count(), 5);
      await page.getByTestId('routine-task-title').focus();
      await page.keyboard.press('Enter');
      await editor.waitFor({ state: 'hidden' });
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'routine-new');

      const { schedules } = await api('GET', '/api/schedules');
      const ours = schedules.filter((s) => s.source === 'clawboo-routine');
      assert.equal(ours.length, 1);
      const s = ours[0];
      assert.equal(s.spec, '0 9 * * *');
      assert.equal(s.timezone, ZONE);
      assert.equal(s.agentId, agent.id);
      assert.deepEqual({ title: s.template.title, kind: s.template.kind }, { title: 'Morning triage', kind: 'research' });

      const c = card(page, s.id);
      await c.waitFor();
      assert.equal(await c.getByTestId('routine-title').textContent(), 'Morning triage');
      assert.equal(await c.getByTestId('routine-agent').textContent(), 'Routine Bot', 'the agent by name');
      assert.ok((await c.getByTestId('routine-description').textContent()).trim().length > 0);
      assert.match(await c.getByTestId('routine-next').textContent(), /(today|tomorrow|\w{3} \d+ \w{3}),? ?09:00 \(in /);
      assert.equal(await c.getByTestId('routine-status').textContent(), 'Armed');
      assert.equal(await c.getByTestId('routine-last').textContent(), 'Not run yet');

      // Edit: the server's 400 (a priority out of range) shows on the form in its words.
      await c.getByTestId('routine-edit').click();
      await editor.waitFor();
      assert.equal(await page.getByTestId('routine-spec').inputValue(), '0 9 * * *');
      assert.equal(await page.getByTestId('routine-task-title').inputValue(), 'Morning triage');
      await page.waitForFunction(() => document.querySelector('[data-testid="routine-preview"]')?.getAttribute('data-state') === 'ok');
      await page.getByTestId('routine-task-priority').fill('5000');
      await page.getByTestId('routine-save').click();
      await waitText(page, page.getByTestId('routine-editor-error'), /priority/i);
      assert.ok(await editor.isVisible(), 'the editor stays open on a refusal');
      await page.getByTestId('routine-task-priority').fill('');
      await page.getByTestId('routine-task-title').fill('Morning triage, edited');
      await page.getByTestId('routine-save').click();
      await editor.waitFor({ state: 'hidden' });
      await waitText(page, c.getByTestId('routine-title'), /^Morning triage, edited$/);
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'routine-edit');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('run now: a mock routine fires, its history shows it running then succeeded, linked to its run, which opens', async () => {
    const s = await routine('Routine run now', '!silent 1500\n!ok routine done');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/routines`, CONTEXT);
    try {
      const c = card(page, s.id);
      await c.waitFor();
      await c.getByTestId('routine-history-toggle').click();
      assert.equal(await c.getByTestId('routine-history-toggle').getAttribute('aria-expanded'), 'true');
      await c.getByTestId('routine-history-empty').waitFor();

      await c.getByTestId('routine-run').click();
      const f = c.getByTestId('routine-fire').first();
      await c.locator('[data-testid="routine-fire"][data-outcome="running"]').waitFor({ timeout: 10_000 });
      await waitText(page, f.getByTestId('routine-fire-outcome'), /^Running/);
      await waitText(page, c.getByTestId('routine-status'), /^Running$/);
      await c.locator('[data-testid="routine-fire"][data-outcome="success"]').waitFor({ timeout: 20_000 });
      assert.equal(await c.getByTestId('routine-fire').count(), 1, 'one fire');
      assert.match(await f.getByTestId('routine-fire-outcome').textContent(), /^Succeeded/);
      assert.match(await f.textContent(), /run now/, 'marked as started by Run now');
      await waitText(page, c.getByTestId('routine-last'), /^Succeeded/);
      await waitText(page, c.getByTestId('routine-status'), /^Armed$/);
      assert.deepEqual(await axeProblems(page), [], 'axe with a history open');

      const { fires } = await api('GET', `/api/schedules/${encodeURIComponent(s.id)}/fires`);
      assert.equal(fires.length, 1);
      assert.equal(fires[0].outcome, 'success');
      assert.ok(fires[0].runId, 'the fire has a run');
      const runLink = f.getByTestId('routine-fire-run');
      assert.equal(await runLink.getAttribute('href'), `#/runs/${encodeURIComponent(fires[0].runId)}`);
      if (fires[0].taskId) {
        assert.equal(await f.getByTestId('routine-fire-task').getAttribute('href'), `#/board/${encodeURIComponent(fires[0].taskId)}`);
      }

      await runLink.click();
      await page.waitForFunction((id) => location.hash === `#/runs/${encodeURIComponent(id)}`, fires[0].runId);
      await waitText(page, page.getByTestId('run-status'), /^succeeded$/);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('pause and resume change the status shown; delete asks first', async () => {
    const s = await routine('Routine to pause', '!ok paused routine', '0 3 * * *');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/routines`, CONTEXT);
    try {
      const c = card(page, s.id);
      await c.waitFor();
      assert.equal(await c.getByTestId('routine-status').textContent(), 'Armed');

      await c.getByTestId('routine-pause').focus();
      await page.keyboard.press('Enter');
      await waitText(page, c.getByTestId('routine-status'), /^Paused$/);
      assert.equal(await c.getAttribute('data-status'), 'paused');
      await waitText(page, c.getByTestId('routine-next'), /none while paused/);
      assert.equal(await focusedTestid(page), 'routine-resume', 'focus stays on the button, now Resume');
      assert.equal((await api('GET', `/api/schedules/${encodeURIComponent(s.id)}`)).schedule.status, 'paused');

      await page.keyboard.press('Enter');
      await waitText(page, c.getByTestId('routine-status'), /^Armed$/);
      await waitText(page, c.getByTestId('routine-next'), /03:00 \(in /);
      assert.equal(await focusedTestid(page), 'routine-pause');

      // Delete: Cancel keeps it and hands focus back; Delete routine removes it.
      await c.getByTestId('routine-delete').click();
      const dialog = page.getByTestId('routine-delete-dialog');
      await dialog.waitFor();
      assert.equal(await focusedTestid(page), 'routine-delete-cancel', 'focus starts on the safe answer');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'routine-delete');
      await c.getByTestId('routine-delete').click();
      await page.getByTestId('routine-delete-confirm').click();
      await c.waitFor({ state: 'detached' });
      const left = (await api('GET', '/api/schedules')).schedules.map((x) => x.id);
      assert.ok(!left.includes(s.id), 'gone from the API');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test("the OpenClaw Gateway's jobs, and why they cannot be listed, show only once OpenClaw was set up", async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/routines`, CONTEXT);
    try {
      await page.getByTestId('routines-page').waitFor();
      await page.locator('[data-testid="routine"], [data-testid="routines-empty"]').first().waitFor();
      assert.equal(await page.getByTestId('gateway-jobs').count(), 0, 'no Gateway section on a home without OpenClaw');
      await api('PUT', '/api/openclaw/settings', { url: 'ws://127.0.0.1:9' });
      await page.reload();
      // With a Gateway given (and not answering), its cron jobs' source says why, in words; there are no actions there.
      await waitText(page, page.getByTestId('gateway-jobs-error'), /^The OpenClaw Gateway's cron jobs cannot be listed: \S/);
      assert.deepEqual(problems, []);
    } finally {
      await api('PUT', '/api/openclaw/settings', { url: '' });
      await context.close();
    }
  });

  test('a schedule changed elsewhere shows here live', async () => {
    const s = await routine('Routine changed elsewhere', '!ok elsewhere', '0 4 * * *');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/routines`, CONTEXT);
    try {
      const c = card(page, s.id);
      await c.waitFor();
      await api('PATCH', `/api/schedules/${encodeURIComponent(s.id)}`, { action: 'pause' });
      await waitText(page, c.getByTestId('routine-status'), /^Paused$/);
      await api('DELETE', `/api/schedules/${encodeURIComponent(s.id)}`);
      await c.waitFor({ state: 'detached' });
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });
});

test('after the backend restarts, the page re-reads: a routine paused while it was down shows paused', { timeout: 60_000 }, async () => {
  // Its own server, because the test kills it.
  const first = await startServer();
  const others = [];
  try {
    const own = (method, path, body) => apiOk(first, method, path, body);
    const bot = (await own('POST', '/api/agents', { name: 'Restart Bot', runtime: 'clawboo-mock' })).agent;
    const { schedule: s } = await own('POST', '/api/schedules', {
      agentId: bot.id,
      spec: '0 5 * * *',
      timezone: ZONE,
      template: { title: 'Survives a restart', kind: 'research' },
    });
    const { page, context } = await openPage(browser, `${first.url}/#/routines`, CONTEXT);
    try {
      const c = card(page, s.id);
      await c.waitFor();
      assert.equal(await c.getByTestId('routine-status').textContent(), 'Armed');
      await first.kill();
      await page.waitForFunction(() => document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') !== 'online');
      // Paused by another process on the same home while the page's backend is down: no event reaches the page.
      const other = await startServer({ home: first.home });
      others.push(other);
      await apiOk(other, 'PATCH', `/api/schedules/${encodeURIComponent(s.id)}`, { action: 'pause' });
      await other.stop();
      const second = await startServer({ home: first.home, addr: first.addr });
      others.push(second);
      await waitText(page, c.getByTestId('routine-status'), /^Paused$/, 20_000);
    } finally {
      await context.close();
    }
  } finally {
    for (const s of others) await s.stop();
    await first.stop();
  }
});
