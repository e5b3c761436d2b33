// ACP agents on the Runtimes page, in Chromium against a real `clawboo
// serve` whose PATH the test owns (world.mjs), so none of the catalog's
// five ACP agents is installed: their cards say how each installs and
// signs in. A person's own agent is added through the form (a command with
// shell syntax refused first, in words at its field), turns ready, is
// offered in the agent dialog, runs a plan that the run view shows as a
// checklist, is refused removal while an agent runs on it (409, in words)
// and is removed once none does. The agent is the scripted ACP agent,
// backend/fakes/fakeacp, built once here.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/acp.test.mjs)
//
// With ACP_SCREENSHOTS=<folder> it also saves the ACP section, its form, a
// person's own agent's card and the run view's plan at 1280×800 and 800×600.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { apiOk } from './api.mjs';
import { card, openRuntimes, waitState } from './cards.mjs';
import { axeProblems, shootSizes, waitTestId, waitText } from './checks.mjs';
import { launchBrowser, openPage, requireBin } from './harness.mjs';
import { makeWorld } from './world.mjs';

requireBin();

const SHOTS = process.env.ACP_SCREENSHOTS || '';
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CATALOG = ['acp-gemini', 'acp-opencode', 'acp-copilot', 'acp-claude', 'acp-goose'];

let browser;
let world;
let bin; // the folder holding fakeacp

before(async () => {
  bin = await mkdtemp(join(tmpdir(), 'clawboo-fakeacp-'));
  await promisify(execFile)('go', ['build', '-o', join(bin, 'fakeacp'), 'github.com/clawboo/desktop/backend/fakes/fakeacp'], { cwd: REPO });
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
  world = await makeWorld({});
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await world?.close();
  if (bin) await rm(bin, { recursive: true, force: true });
});

/** Console errors other than the refusals the test provokes on purpose. */
const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|409)/.test(p));

/** Screenshots at both sizes, the element `selector` scrolled to `block` ('start', 'center', 'end') at each. */
const shoot = (page, name, selector, block) =>
  shootSizes(page, SHOTS, name, (p) => p.evaluate(([sel, b]) => document.querySelector(sel)?.scrollIntoView({ block: b }), [selector, block]));

/** The run once it has ended (polled until then). */
async function waitRun(runId) {
  for (let i = 0; i < 400; i++) {
    const r = await apiOk(world.server, 'GET', `/api/runs/${runId}`);
    if (!['starting', 'running'].includes(r.status)) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.fail(`run ${runId} never ended`);
}

/** The data-testid, else the id, of the focused element. */
const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') || document.activeElement?.id || '');

/** Waits until the focused element is `want` (a test id or an id). */
async function waitFocus(page, want) {
  await page.waitForFunction(
    (w) => (document.activeElement?.getAttribute('data-testid') || document.activeElement?.id) === w,
    want,
    { timeout: 10_000 },
  ).catch(async () => assert.fail(`focus never reached ${want} (it is on ${await focused(page)})`));
}

describe('ACP agents', { timeout: 120_000 }, () => {
  test('the catalog’s five are listed, not installed, each saying how it installs and signs in', async () => {
    const { page, context, problems } = await openRuntimes(browser, world);
    try {
      const section = page.getByTestId('acp-section');
      await section.waitFor();
      assert.equal(await section.getByRole('heading', { level: 2, name: 'ACP agents' }).count(), 1);
      const ids = await section.locator('[data-testid="runtime-card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-runtime-id')));
      assert.deepEqual(ids, CATALOG, 'the five catalog agents, in the catalog’s order, in their own section');
      for (const id of CATALOG) await waitState(page, id, 'not-installed');
      // Not in the first group: the ACP agents have their own heading.
      assert.equal(await page.locator('.grid > [data-testid="runtime-card"][data-runtime-id^="acp-"]').count(), 5);
      assert.equal(await section.getByRole('heading', { level: 3, name: 'Gemini CLI' }).count(), 1, 'names head the cards');

      const gemini = card(page, 'acp-gemini');
      assert.match(await gemini.getByTestId('install-command').textContent(), /^npm install -g @google\/gemini-cli@0$/);
      assert.equal(await gemini.getByTestId('install-button').textContent(), 'Install Gemini CLI');
      assert.match(await gemini.getByTestId('sign-in').textContent(), /Signs in with an API key \(GEMINI_API_KEY\)/);
      const opencode = card(page, 'acp-opencode');
      assert.equal(await opencode.getByTestId('sign-in-command').textContent(), 'opencode auth login');
      assert.match(await opencode.getByTestId('sign-in').textContent(), /Signs in with its own login:\s+opencode auth login/);
      assert.match(await opencode.getByTestId('sign-in').textContent(), /It is also given ANTHROPIC_API_KEY, OPENAI_API_KEY and OPENROUTER_API_KEY when set\./);
      // Goose is not an npm package: no Install button, a pointer to its guide.
      const goose = card(page, 'acp-goose');
      assert.equal(await goose.getByTestId('install-button').count(), 0);
      assert.match(await goose.getByTestId('manual-install').textContent(), /Goose is not installed on this computer yet, and Clawboo cannot install it for you\./);
      assert.equal(await goose.getByRole('link', { name: 'How to install Goose' }).count(), 1);
      // The catalog's agents cannot be removed.
      assert.equal(await section.getByTestId('acp-remove').count(), 0);
      // People read names: no runtime id outside the collapsed Details.
      assert.doesNotMatch(await section.innerText(), /acp-/);

      // The page scrolls inside itself; nothing on it (hidden words for screen readers included) makes the window scroll.
      for (const [width, height] of [[800, 600], [1280, 800]]) {
        await page.setViewportSize({ width, height });
        const over = await page.evaluate(() => document.scrollingElement.scrollHeight - innerHeight);
        assert.equal(over, 0, `the window scrolls by ${over}px at ${width}×${height}`);
      }
      await shoot(page, 'runtimes-acp', '[data-testid="acp-section"]', 'start');
      await shoot(page, 'runtimes-acp-form', '[data-testid="acp-add-form"]', 'end');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('a person’s own agent: refused in words, added by keyboard, run with a plan, refused removal while used, removed', async () => {
    // bypassCSP lets axe's script in; the page's own behaviour is the same.
    const { page, context, problems } = await openRuntimes(browser, world, { bypassCSP: true });
    try {
      const form = page.getByTestId('acp-add-form');
      await form.waitFor();

      // The section's "Add your own" link takes the keyboard past every card to the form.
      await page.getByTestId('acp-add-jump').focus();
      await page.keyboard.press('Enter');
      await waitFocus(page, 'acp-name');
      // Shell syntax in the command: the backend's words at the command field, which takes the focus.
      await page.keyboard.type('Fake agent');
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'acp-command');
      await page.keyboard.type('fakeacp; rm -rf ~');
      await page.keyboard.press('Enter');
      await waitTestId(page, 'acp-add-error', /^No shell syntax: the command and each argument are passed/, 10_000, form);
      assert.equal(await form.getByTestId('acp-add-error').getAttribute('data-field'), 'command');
      assert.equal(await form.getByTestId('acp-command').getAttribute('aria-invalid'), 'true');
      await waitFocus(page, 'acp-command');
      assert.equal(await card(page, 'acp-fake-agent').count(), 0, 'nothing was added');
      assert.deepEqual(await axeProblems(page), [], 'the page with the refusal shown');

      // The program by its absolute path: the card appears, ready, and takes the focus.
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type(join(bin, 'fakeacp'));
      await page.keyboard.press('Enter');
      await waitState(page, 'acp-fake-agent', 'ready');
      await waitFocus(page, 'rt-acp-fake-agent');
      await waitTestId(page, 'acp-add-done', /^Fake agent was added\.$/, 10_000, form);
      assert.equal(await form.getByTestId('acp-name').inputValue(), '', 'the form is empty for the next one');
      assert.equal(await form.getByTestId('acp-add-error').count(), 0);
      const mine = card(page, 'acp-fake-agent');
      assert.match(await mine.getByTestId('ready-note').textContent(), /Ready to run tasks\./);
      assert.match(await mine.getByTestId('card-health').textContent(), /Health check: OK/);
      assert.match(await mine.getByTestId('sign-in').textContent(), /Signs in its own way, if it needs to\./);
      assert.doesNotMatch(await mine.innerText(), /acp-fake-agent/, 'its id only behind Details');
      await mine.getByText('Details').click();
      assert.equal(await mine.getByTestId('acp-command-line').textContent(), join(bin, 'fakeacp'));
      await shoot(page, 'runtimes-acp-mine', '[data-runtime-id="acp-fake-agent"]', 'center');

      // The agent dialog offers it, in its own group; catalog agents not installed here are not offered.
      await page.getByTestId('nav-agents').click();
      await page.getByTestId('new-agent').click();
      await page.getByTestId('agent-dialog').waitFor();
      await page.waitForSelector('[data-testid="agent-runtime"] optgroup[label="ACP agents"] option[value="acp-fake-agent"]', { state: 'attached' });
      assert.equal(await page.locator('[data-testid="agent-runtime"] option[value="acp-fake-agent"]').textContent(), 'Fake agent');
      assert.equal(await page.locator('[data-testid="agent-runtime"] option[value="acp-gemini"]').count(), 0);
      assert.equal(await page.locator('[data-testid="agent-runtime"] option[value="claude-code"]').count(), 1, 'the others as before');
      await page.getByTestId('agent-cancel').click();

      // A run with a plan: the run view shows it as a checklist, each status in words too.
      const run = await apiOk(world.server, 'POST', '/api/runtimes/acp-fake-agent/run', { message: '!plan read|write|test\n!say done', wait: true });
      assert.equal(run.status, 'succeeded');
      await page.goto(`${world.url}/#/runs/${run.runId}`);
      const plan = page.getByTestId('run-plan');
      await plan.waitFor();
      await waitTestId(page, 'run-output', /^done$/);
      const steps = await plan.getByTestId('run-plan-step').evaluateAll((els) => els.map((e) => [e.getAttribute('data-status'), e.textContent.replace(/\s+/g, ' ').trim()]));
      assert.deepEqual(steps, [
        ['in_progress', '▸ in progress: read'],
        ['pending', '○ to do: write'],
        ['pending', '○ to do: test'],
      ]);
      assert.equal(await plan.getByTestId('run-plan-progress').textContent(), '0 of 3 done');
      assert.equal(await plan.getByRole('heading', { name: /^Plan/ }).count(), 1);
      await page.setViewportSize({ width: 800, height: 600 });
      assert.equal(await page.evaluate(() => document.scrollingElement.scrollHeight - innerHeight), 0, 'the plan’s hidden words stay in the run pane');
      await page.setViewportSize({ width: 1280, height: 800 });
      await shoot(page, 'run-acp-plan', '[data-testid="run-plan"]', 'start');

      // An agent on it: Remove is refused with the backend's words naming the agent; the card stays.
      const { agent } = await apiOk(world.server, 'POST', '/api/agents', { name: 'Planner', runtime: 'acp-fake-agent' });
      await page.goto(`${world.url}/#/runtimes`);
      await waitState(page, 'acp-fake-agent', 'ready');
      await mine.getByTestId('acp-remove').focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByTestId('acp-remove-dialog');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /Remove Fake agent\?/);
      await waitFocus(page, 'acp-remove-cancel');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await waitText(page, dialog.getByRole('alert'), /agents still run on it: Planner; move them to another runtime first/);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await mine.count(), 1);

      // None runs on it any more: removed; focus lands on the section's heading, which says which went.
      await apiOk(world.server, 'DELETE', `/api/agents/${agent.id}`);
      await mine.getByTestId('acp-remove').click();
      await dialog.waitFor();
      await page.getByTestId('acp-remove-confirm').click();
      await mine.waitFor({ state: 'detached' });
      await waitFocus(page, 'acp-heading');
      await waitTestId(page, 'acp-said', /^Fake agent was removed\.$/);
      const listed = (await apiOk(world.server, 'GET', '/api/runtimes')).runtimes.map((r) => r.id);
      assert.ok(!listed.includes('acp-fake-agent'), `gone from the catalog: ${listed}`);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('an agent that offers “allow always”: the card’s “Allow for this session” answers its later asks too', async () => {
    await apiOk(world.server, 'POST', '/api/acp/agents', { name: 'Asker', command: join(bin, 'fakeacp') });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/approvals`);
    try {
      const { runId } = await apiOk(world.server, 'POST', '/api/runtimes/acp-asker/run', { message: '!ask ship it\n!ask ship it', wait: false });
      const cardOf = page.locator(`[data-testid="approval-card"]`).filter({ has: page.getByTestId('approval-program').getByText('ship it', { exact: true }) });
      await cardOf.waitFor();
      const always = cardOf.getByTestId('approval-allow-always');
      assert.equal(await always.textContent(), 'Allow for this session');
      await shoot(page, 'approval-acp-always', '[data-testid="approval-card"]', 'center');
      await always.focus();
      await page.keyboard.press('Enter');
      await cardOf.waitFor({ state: 'detached' });
      const row = page.locator('[data-testid="approval-history-row"]').filter({ hasText: 'ship it' });
      await waitText(page, row, /Allowed for the session/);
      const done = await waitRun(runId);
      assert.equal(done.status, 'succeeded');
      assert.equal(done.summary.split('permission: allow-always').length - 1, 2, `the agent was told ${done.summary}`);
      const asked = (await apiOk(world.server, 'GET', '/api/approvals?status=answered&limit=50')).approvals.filter((a) => a.runId === runId);
      assert.equal(asked.length, 1, 'asked once for the session');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
      await apiOk(world.server, 'DELETE', '/api/acp/agents/acp-asker');
    }
  });

  test('an agent on an ACP agent that is not installed says so by name on the Agents page', async () => {
    const { agent } = await apiOk(world.server, 'POST', '/api/agents', { name: 'Gem', runtime: 'acp-gemini' });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/agents`);
    try {
      const row = page.locator(`[data-testid="agent-row"][data-agent-id="${agent.id}"]`);
      await waitText(page, row.getByTestId('agent-provider-badge'), /^Gemini CLI isn't installed — install it on Runtimes$/);
      assert.equal(await row.getByTestId('agent-runtime-name').textContent(), 'Gemini CLI');
      assert.doesNotMatch(await row.innerText(), /acp-gemini/, 'names, not ids');
      assert.equal(await page.getByTestId('agent-detail-runtime').count(), 0, 'no agent is open yet');
      await row.getByTestId('agent-open').click();
      assert.equal(await page.getByTestId('agent-detail-runtime').textContent(), 'Gemini CLI');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
      await apiOk(world.server, 'DELETE', `/api/agents/${agent.id}`);
    }
  });

  test('an unknown event kind in a run’s stream does not break the run view', async () => {
    const run = await apiOk(world.server, 'POST', '/api/runtimes/clawboo-mock/run', { message: '!ok hello', wait: true });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/runs/${run.runId}`);
    try {
      // The stream is served as the backend sends it, with a kind from a newer backend slipped in first.
      await page.route(`**/api/runs/${run.runId}/events`, async (route) => {
        const res = await route.fetch();
        const odd = `id: 0\ndata: ${JSON.stringify({ runId: run.runId, seq: 0.5, ts: 1, kind: 'from-the-future', x: [1] })}\n\n`;
        await route.fulfill({ response: res, body: odd + (await res.text()) });
      });
      await page.reload();
      await waitTestId(page, 'run-output', /hello/);
      assert.equal(await page.getByTestId('run-plan').count(), 0);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });
});
