// Browser tests of what a newcomer met on the board (issue 16): a run that
// changed nothing, names instead of ids, every column in view at 1280 px,
// filters and search, and the keyboard way into and out of a task's drawer.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/board-ui.test.mjs)

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiAnswer, apiOk } from './api.mjs';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { gitIn, makeRepoIn } from './repos.mjs';
import { waitTestId as waitText } from './checks.mjs';

const api = (method, path, body) => apiAnswer(server, method, path, body);
const apiPost = (path, body) => apiOk(server, 'POST', path, body);

requireBin();

let server;
let browser;
let scratch;

/** Where screenshots go (kept as test artifacts). */
const SHOTS = process.env.CLAWBOO_SHOTS || join(tmpdir(), 'clawboo-board-shots');

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'clawboo-board-ui-e2e-'));
  await mkdir(SHOTS, { recursive: true });
  server = await startServer({ mockWorktrees: true });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const AT_1280 = { viewport: { width: 1280, height: 800 } };
const AT_800 = { viewport: { width: 800, height: 600 } };

const card = (page, id) => page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);

describe('a run that changed nothing', { timeout: 60_000 }, () => {
  test('the task is done, its diff answers 200 with no changes, and the drawer says so without listing the deleted branch', async () => {
    const repo = await makeRepoIn(scratch, 'unchanged');
    const { task } = await apiPost('/api/board', { title: 'Look but do not touch', repoPath: repo });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`, AT_1280);
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    try {
      await page.getByTestId('task-drawer').waitFor();
      // The drawer is open while the run works and ends.
      await apiPost('/api/runtimes/clawboo-mock/run', { taskId: task.id, message: '!ok looked around\n!silent 400\n!ok nothing to change', wait: true });
      await page.waitForSelector('[data-testid="task-drawer"] [data-testid="task-status"][data-status="done"]');

      const diff = await api('GET', `/api/board/${task.id}/diff`);
      assert.equal(diff.status, 200, `diff: ${JSON.stringify(diff.json)}`);
      assert.equal(diff.json.changed, false);
      assert.equal(diff.json.files, 0);
      assert.equal(gitIn(repo, 'branch', '--list', `clawboo/task-${task.id}`), '', 'the branch is gone');

      await waitText(page, 'task-diff-unchanged', /This task changed nothing/);
      await page.waitForTimeout(500); // a late re-read must not bring an error back
      assert.equal(await page.getByTestId('task-diff-error').count(), 0, 'no diff error');
      assert.equal(await page.getByTestId('task-worktree-branch').count(), 0, 'the deleted branch is not listed as a branch');
      assert.match(await page.getByTestId('task-worktree').textContent(), /removed/);
      assert.deepEqual(problems, []);

      // Opened afresh, it says the same.
      await page.reload();
      await waitText(page, 'task-diff-unchanged', /This task changed nothing/);
      assert.equal(await page.getByTestId('task-worktree-branch').count(), 0);
    } finally {
      await context.close();
    }
  });
});


describe('the board page', { timeout: 60_000 }, () => {
  test('at 1280 px every column through Done is in view, Cancelled collapsed, empty columns say so inside them', async () => {
    await apiPost('/api/board', { title: 'A card in todo', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, AT_1280);
    try {
      await page.waitForSelector('[data-testid="task-card"]');
      for (const s of ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done']) {
        const box = await page.getByTestId(`board-column-${s}`).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= 1280, `${s} is in view: ${JSON.stringify(box)}`);
      }
      assert.equal(await page.getByTestId('board-column-cancelled').getAttribute('data-collapsed'), 'true');
      assert.match(await page.getByTestId('board-column-in_review').getByTestId('column-empty').textContent(), /Nothing waits for review/);
      await page.screenshot({ path: join(SHOTS, 'board-1280.png') });
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: join(SHOTS, 'board-800.png') });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('while the first read is under way the counts say so instead of 0, then count every task', async () => {
    await apiPost('/api/board', { title: 'A counted card', kind: 'research' });
    const context = await browser.newContext(AT_1280);
    try {
      const page = await context.newPage();
      let release;
      const held = new Promise((r) => (release = r));
      await page.route(/\/api\/board(\?|$)/, async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${server.url}/#/board`);
      await page.waitForSelector('body[data-ready="1"]');
      const todo = page.getByTestId('board-column-todo');
      assert.equal((await todo.getByTestId('column-count').textContent()).trim(), '…');
      assert.equal((await page.getByTestId('board-total').textContent()).trim(), 'Counting…');
      release();
      await todo.getByTestId('task-card').first().waitFor();
      assert.match((await todo.getByTestId('column-count').textContent()).trim(), /^[1-9]\d*$/);
      assert.match((await page.getByTestId('board-total').textContent()).trim(), /^[1-9]\d* tasks?$/);
    } finally {
      await context.close();
    }
  });

  test('Enter on a focused card opens its drawer with the focus inside; Escape closes it and the focus is back on the card', async () => {
    const { task } = await apiPost('/api/board', { title: 'Reach me by keyboard', kind: 'research' });
    const { page, context } = await openPage(browser, `${server.url}/#/board`, AT_1280);
    try {
      await card(page, task.id).focus();
      await page.keyboard.press('Enter');
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${task.id}"]`);
      await page.waitForFunction(() => !!document.activeElement?.closest('[data-testid="task-drawer"]'));
      await page.screenshot({ path: join(SHOTS, 'drawer-1280.png') });
      await page.keyboard.press('Escape');
      await page.getByTestId('task-drawer').waitFor({ state: 'detached' });
      await page.waitForFunction((id) => document.activeElement?.getAttribute('data-task-id') === id, task.id);
    } finally {
      await context.close();
    }
  });

  test('while a run is live, the drawer shows its stream above the fold at 1280×800 and 800×600', async () => {
    const { task } = await apiPost('/api/board', {
      title: 'Watch me work',
      kind: 'research',
      description: 'A description long enough to take some room.\n'.repeat(6),
    });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`, AT_1280);
    let runId = '';
    try {
      await page.getByTestId('task-drawer').waitFor();
      ({ runId } = await apiPost('/api/runtimes/clawboo-mock/run', { taskId: task.id, message: '!ok working on it\n!silent 8000\n!ok done', wait: false }));
      const output = page.locator('[data-testid="task-run-stream"] [data-testid="run-output"]');
      await waitText(page, 'task-run-stream', /working on it/);
      for (const [w, h] of [
        [1280, 800],
        [800, 600],
      ]) {
        await page.setViewportSize({ width: w, height: h });
        await page.waitForTimeout(150);
        assert.equal(await page.getByTestId('task-run-stream').getAttribute('data-run-id'), runId);
        assert.equal(await page.locator('[data-testid="task-run-stream"] [data-testid="run-status"]').textContent(), 'running');
        assert.equal(await page.getByTestId('task-drawer').evaluate((d) => d.scrollTop), 0, 'the drawer is not scrolled');
        const box = await output.boundingBox();
        assert.ok(box, 'the live output is drawn');
        assert.ok(box.y >= 0 && box.y + Math.min(box.height, 40) <= h, `at ${w}×${h} the live output is at y=${box.y} (height ${box.height})`);
        await page.screenshot({ path: join(SHOTS, `drawer-live-${w}.png`) });
      }
      // Once the run has ended the drawer is as before: the stream under the runs list.
      await api('POST', `/api/runs/${runId}/abort`);
      await page.waitForFunction(() => {
        const s = document.querySelector('[data-testid="task-run-stream"]');
        return s && s.getAttribute('data-place') !== 'top' && s.querySelector('[data-testid="run-status"]')?.textContent !== 'running';
      }, null, { timeout: 10_000 });
      assert.deepEqual(problems, []);
    } finally {
      if (runId) await api('POST', `/api/runs/${runId}/abort`).catch(() => {});
      await context.close();
    }
  });

  test('filters and search narrow the board; agents show by name; a dependency is picked by title', async () => {
    await apiPost('/api/agents', { name: 'Ada Reviewer', runtime: 'clawboo-mock' }).catch(() => null);
    const agents = (await api('GET', '/api/agents')).json.agents ?? [];
    const ada = agents.find((a) => a.name === 'Ada Reviewer');
    const { task: needle } = await apiPost('/api/board', { title: 'Find the needle', kind: 'research', ...(ada ? { assigneeAgentId: ada.id } : {}) });
    const { task: other } = await apiPost('/api/board', { title: 'Some other work', kind: 'research' });
    const { page, context } = await openPage(browser, `${server.url}/#/board`, AT_1280);
    try {
      await card(page, other.id).waitFor();
      if (ada) {
        assert.equal((await card(page, needle.id).getByTestId('task-card-agent').textContent()).trim(), '@Ada Reviewer');
        assert.doesNotMatch(await card(page, needle.id).textContent(), new RegExp(ada.id));
        await page.getByTestId('board-agent').selectOption(ada.id);
        await card(page, other.id).waitFor({ state: 'detached' });
        await page.getByTestId('board-agent').selectOption('');
      }
      await page.getByTestId('board-search').fill('needle');
      await card(page, other.id).waitFor({ state: 'detached' });
      await card(page, needle.id).waitFor();
      await page.getByTestId('board-search').fill('');
      await card(page, other.id).waitFor();
      await page.getByTestId('board-status').selectOption('todo');
      assert.equal(await page.getByTestId('board-column-done').count(), 0);
      await page.getByTestId('board-status').selectOption('');

      // The dependency: typed words find the task by its title.
      await card(page, other.id).click();
      await page.getByTestId('task-dep-input').fill('the needle');
      await page.locator(`[data-testid="task-dep-option"][data-task-id="${needle.id}"]`).click();
      await page.locator(`[data-testid="task-dep"][data-dep-id="${needle.id}"]`, { hasText: 'Find the needle' }).waitFor();
      if (ada) {
        await card(page, needle.id).click();
        await waitText(page, 'task-assignee', /@Ada Reviewer/);
      }
    } finally {
      await context.close();
    }
  });

  test('the team filter shows names, never an id, even for a team it cannot find', async () => {
    await apiPost('/api/teams', { name: 'Visible Crew', repoPath: await makeRepoIn(scratch, 'visible-crew') });
    const gone = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board?team=${gone}`, AT_1280);
    try {
      const select = page.getByTestId('board-team');
      await select.locator('option', { hasText: 'Visible Crew' }).waitFor({ state: 'attached' });
      const options = await select.locator('option').allTextContents();
      assert.ok(!options.some((o) => o.includes(gone)), `an id in the team filter: ${JSON.stringify(options)}`);
      assert.equal(await select.locator('option:checked').textContent(), 'A removed team');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('New task sends its base branch and Merge when green', async () => {
    const repo = await makeRepoIn(scratch, 'new-task-base');
    gitIn(repo, 'branch', 'release');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, AT_1280);
    try {
      const sent = new Promise((ok) =>
        page.on('request', (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/board' && ok(JSON.parse(r.postData() ?? '{}'))),
      );
      await page.getByTestId('new-task').click();
      await page.getByTestId('new-task-dialog').waitFor();
      await page.getByTestId('new-task-title').fill('Land on release');
      await page.getByTestId('new-task-repo').fill(repo);
      assert.equal(await page.getByTestId('new-task-base').getAttribute('placeholder'), 'the branch checked out when the work starts');
      await page.getByTestId('new-task-base').fill('release');
      assert.match(await page.getByTestId('new-task-merge-green-note').textContent(), /waits in review for you/);
      await page.getByTestId('new-task-merge-green').focus();
      await page.keyboard.press('Space');
      assert.match(await page.getByTestId('new-task-merge-green-note').textContent(), /Clawboo merges it into its base branch/);
      await page.getByTestId('new-task-submit').click();
      const body = await sent;
      assert.equal(body.baseBranch, 'release');
      assert.equal(body.mergeWhenGreen, true);
      await page.getByTestId('new-task-dialog').waitFor({ state: 'hidden' });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
