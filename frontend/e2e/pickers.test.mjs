// Names, not ids (issue 16 item 8), in Chromium against a real `clawboo
// serve`: assignees, a run's agent, dependencies and budget targets are
// chosen from searchable lists (one shared combobox: type to filter, arrows,
// Enter picks, Escape closes only the list) that pass axe; the Runs page
// names a run's agent and task; the Spend page names a task the board has
// not loaded (a page away). Screenshots go to CLAWBOO_SHOTS.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/pickers.test.mjs)

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';

const api = (method, path, body) => apiOk(server, method, path, body);

requireBin();
const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const SHOTS = process.env.CLAWBOO_SHOTS || join(tmpdir(), 'clawboo-picker-shots');
const AT_1280 = { viewport: { width: 1280, height: 800 }, bypassCSP: true };
const AT_800 = { viewport: { width: 800, height: 600 }, bypassCSP: true };

let server;
let browser;
let ada;
let bea;

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
  ada = (await api('POST', '/api/agents', { name: 'Ada Lovelace', runtime: 'clawboo-mock' })).agent;
  bea = (await api('POST', '/api/agents', { name: 'Bea Builder', runtime: 'clawboo-mock' })).agent;
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** axe's serious and critical violations, as readable lines. */
async function axeProblems(page) {
  await page.addScriptTag({ path: AXE });
  const vs = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return vs;
}

const activeId = (page) => page.evaluate(() => document.activeElement?.id ?? '');

describe('searchable lists', { timeout: 60_000 }, () => {
  test('New Task: the assignee is chosen by name from a combobox, by keyboard alone; Escape closes the list, not the dialog', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, AT_1280);
    try {
      await page.getByTestId('new-task').click();
      await page.getByTestId('new-task-dialog').waitFor();
      await page.getByTestId('new-task-title').fill('Assigned by name');
      await page.getByTestId('new-task-kind').selectOption('research');
      const input = page.getByTestId('new-task-assignee');
      assert.equal(await input.getAttribute('role'), 'combobox');
      assert.equal(await input.getAttribute('aria-expanded'), 'false');
      assert.equal(await input.getAttribute('aria-controls'), null, 'no aria-controls while the listbox is absent');
      await input.focus();
      await page.keyboard.type('bea');
      await page.getByTestId('new-task-assignee-options').waitFor();
      assert.equal(await input.getAttribute('aria-expanded'), 'true');
      const listId = await input.getAttribute('aria-controls');
      assert.equal(await page.locator(`#${listId}`).getAttribute('role'), 'listbox');
      const shown = await page.getByTestId('new-task-assignee-option').allTextContents();
      assert.equal(shown.length, 1, `one match: ${shown}`);
      assert.match(shown[0], /Bea Builder/);
      await page.keyboard.press('ArrowDown');
      const act = await input.getAttribute('aria-activedescendant');
      assert.ok(act, 'an active option');
      assert.equal(await page.locator(`#${act}`).getAttribute('data-agent-id'), bea.id);
      await page.screenshot({ path: join(SHOTS, 'new-task-assignee-1280.png') });
      assert.deepEqual(await axeProblems(page), [], 'axe with the list open');
      await page.keyboard.press('Enter');
      assert.equal(await input.inputValue(), 'Bea Builder · clawboo-mock');
      assert.equal(await page.getByTestId('new-task-assignee-options').count(), 0, 'the list closed on a pick');
      // Escape closes an open list and leaves the dialog open.
      await page.keyboard.press('ArrowDown');
      await page.getByTestId('new-task-assignee-options').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('new-task-assignee-options').waitFor({ state: 'detached' });
      assert.ok(await page.getByTestId('new-task-dialog').isVisible(), 'the dialog is still open');
      await page.setViewportSize({ width: 800, height: 600 });
      await page.keyboard.press('ArrowDown');
      await page.screenshot({ path: join(SHOTS, 'new-task-assignee-800.png') });
      await page.keyboard.press('Escape');
      await page.getByTestId('new-task-submit').click();
      await page.getByTestId('new-task-dialog').waitFor({ state: 'hidden' });
      const { tasks } = await api('GET', '/api/board?q=Assigned%20by%20name');
      assert.deepEqual(tasks.map((t) => t.assigneeAgentId), [bea.id]);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the run panel: the agent is chosen from a combobox, filtered by name; an emptied input means no agent', async () => {
    const { task } = await api('POST', '/api/board', { title: 'Pick my agent', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`, AT_1280);
    try {
      const input = page.getByTestId('task-run-agent');
      await input.waitFor();
      assert.equal(await input.getAttribute('role'), 'combobox');
      await input.focus();
      await page.keyboard.type('love');
      await page.getByTestId('task-run-agent-options').waitFor();
      assert.deepEqual(await page.getByTestId('task-run-agent-option').evaluateAll((els) => els.map((e) => e.dataset.agentId)), [ada.id]);
      await page.keyboard.press('Enter');
      assert.equal(await input.inputValue(), 'Ada Lovelace · clawboo-mock');
      assert.equal(await activeId(page), 'task-run-agent', 'focus stays in the input');
      await page.screenshot({ path: join(SHOTS, 'run-panel-agent-1280.png') });
      // Escape with the list closed still closes the drawer.
      await page.keyboard.press('Escape');
      await page.getByTestId('task-drawer').waitFor({ state: 'detached' });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('dependencies: the input names no absent listbox (axe), and arrows + Enter add the match', async () => {
    const { task: dep } = await api('POST', '/api/board', { title: 'Lay the foundation', kind: 'research' });
    const { task } = await api('POST', '/api/board', { title: 'Raise the walls', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`, AT_1280);
    try {
      const input = page.locator('#task-dep-input');
      await input.waitFor();
      assert.equal(await input.getAttribute('aria-controls'), null);
      assert.deepEqual(await axeProblems(page), [], 'axe with the list closed');
      await input.focus();
      await page.keyboard.type('foundation');
      await page.locator(`[data-testid="task-dep-option"][data-task-id="${dep.id}"]`).waitFor();
      await page.keyboard.press('ArrowDown');
      assert.ok(await input.getAttribute('aria-activedescendant'));
      await page.keyboard.press('Enter');
      await page.locator(`[data-testid="task-dep"][data-dep-id="${dep.id}"]`, { hasText: 'Lay the foundation' }).waitFor();
      assert.deepEqual((await api('GET', `/api/board/${task.id}`)).task.dependsOn, [dep.id]);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

describe('budgets by name', { timeout: 60_000 }, () => {
  test('a budget’s agent and mission are chosen from lists of names and listed by name', async () => {
    const { task: mission } = await api('POST', '/api/board', { title: 'Ship the spring release', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, AT_1280);
    try {
      await page.getByTestId('budget-form').waitFor();
      await page.getByTestId('budget-scope').selectOption('agent');
      const target = page.getByTestId('budget-scope-id');
      assert.equal(await target.getAttribute('role'), 'combobox');
      await target.focus();
      await page.keyboard.type('ada');
      await page.getByTestId('budget-scope-id-options').waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      assert.equal(await target.inputValue(), 'Ada Lovelace');
      await page.getByTestId('budget-limit').fill('3.00');
      await page.getByTestId('budget-save').click();
      const row = page.locator(`[data-testid="budget-row"][data-scope="agent"][data-scope-id="${ada.id}"]`);
      await row.waitFor();
      assert.match(await row.getByTestId('budget-target').textContent(), /Ada Lovelace/);

      await page.getByTestId('budget-scope').selectOption('mission');
      await target.focus();
      await page.keyboard.type('spring');
      await page.locator(`[data-testid="budget-scope-id-option"][data-id="${mission.id}"]`).waitFor();
      await page.screenshot({ path: join(SHOTS, 'budget-mission-1280.png') });
      assert.deepEqual(await axeProblems(page), [], 'axe with the list open');
      await page.keyboard.press('Enter');
      await page.getByTestId('budget-limit').fill('5.00');
      await page.getByTestId('budget-save').click();
      const mrow = page.locator(`[data-testid="budget-row"][data-scope="mission"][data-scope-id="${mission.id}"]`);
      await mrow.waitFor();
      assert.match(await mrow.getByTestId('budget-target').textContent(), /Ship the spring release/);
      // Edit puts the name back in the chooser, not the id.
      await mrow.getByTestId('budget-edit').click();
      assert.equal(await target.inputValue(), 'Ship the spring release');
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: join(SHOTS, 'budgets-800.png'), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

describe('runs by name', { timeout: 60_000 }, () => {
  test('the Runs page shows a run’s agent by name and its task by title, never a bare id', async () => {
    const { task } = await api('POST', '/api/board', { title: 'Name the runs', kind: 'research' });
    const taskRun = await api('POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id, agentId: ada.id, message: '!ok', wait: true });
    const taskRunId = taskRun.run?.id ?? taskRun.runId ?? taskRun.id;
    const { page, context, problems } = await openPage(browser, `${server.url}/#/runs/${taskRunId}`, AT_1280);
    try {
      const row = page.locator(`[data-testid="run-row"][data-run-id="${taskRunId}"]`);
      await row.waitFor();
      const deadline = Date.now() + 5000;
      let text = '';
      while (Date.now() < deadline) {
        text = await row.textContent();
        if (/Name the runs/.test(text) && /Ada Lovelace/.test(text)) break;
        await page.waitForTimeout(50);
      }
      assert.match(text, /Name the runs/, 'the task by title');
      assert.match(text, /Ada Lovelace/, 'the agent by name');
      assert.ok(!text.includes(taskRunId), `no bare run id: ${text}`);
      assert.ok(!text.includes(ada.id), 'no agent id');
      const facts = page.getByTestId('run-names');
      await facts.waitFor();
      assert.match(await facts.textContent(), /Ada Lovelace/);
      assert.match(await facts.textContent(), /Name the runs/);
      await page.screenshot({ path: join(SHOTS, 'runs-1280.png') });
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: join(SHOTS, 'runs-800.png') });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

describe('spend names past the board’s pages', { timeout: 90_000 }, () => {
  test('a task the board has not loaded is named by its title on the Spend page', async () => {
    // The spending task sorts last in To do, behind more than a page (100) of others.
    // The spending task is done, behind more than a page (100) of tasks done after it.
    const { task } = await api('POST', '/api/board', { title: 'Far past the first page', kind: 'research' });
    await api('POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id, message: '!cost 0.25\n!ok', wait: true });
    for (let i = 0; i < 105; i++) {
      const { task: t } = await api('POST', '/api/board', { title: `Done later ${i}`, kind: 'research' });
      await api('PATCH', `/api/board/${t.id}`, { status: 'in_progress' });
      await api('PATCH', `/api/board/${t.id}`, { status: 'done' });
    }
    const first = await api('GET', '/api/board?status=done&order=recent&limit=100');
    assert.ok(!first.tasks.some((t) => t.id === task.id), 'the task is past the first page of Done');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`, AT_1280);
    try {
      const row = page.locator(`[data-testid="spend-by-task-row"][data-key="${task.id}"]`);
      await row.waitFor();
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && !/Far past the first page/.test(await row.textContent())) await page.waitForTimeout(50);
      assert.match(await row.textContent(), /Far past the first page/);
      assert.doesNotMatch(await row.textContent(), /not found/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
