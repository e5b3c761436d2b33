// Browser tests of the board and the Spend page against a real `clawboo
// serve` with the mock runtime: a code task created in the UI on a real git
// repository runs in its own worktree, streams live into its drawer, and
// lands in review with its diff and cost; moves follow the rules by drag and
// by button; budgets are edited live.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/board.test.mjs)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';
import { makeRepoIn } from './repos.mjs';
import { waitTestId as waitText } from './checks.mjs';

const apiPost = (path, body) => apiOk(server, 'POST', path, body);
const apiGet = (path) => apiOk(server, 'GET', path);

requireBin();

let server;
let browser;
let scratch;

// Board tasks leave diffs with the mock's !write: the worktree mock.
useSuite({ scratch: 'clawboo-board-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

/** A git repository with one commit on main, in the scratch folder. */
const makeRepo = (name) => makeRepoIn(scratch, name);

/** Wide enough for all seven columns, so drags never need to scroll. */
const WIDE = { viewport: { width: 1700, height: 900 } };

const card = (page, id) => page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
const column = (page, status) => page.getByTestId(`board-column-${status}`);

/** Waits until the drawer's status badge says `status`. */
async function waitStatus(page, status, timeout = 10_000) {
  try {
    await page.waitForSelector(`[data-testid="task-drawer"] [data-testid="task-status"][data-status="${status}"]`, { timeout });
  } catch {
    const now = await page.getByTestId('task-status').getAttribute('data-status', { timeout: 500 }).catch(() => null);
    const comments = await page.getByTestId('task-comment').allTextContents().catch(() => []);
    assert.fail(`the task never became ${status} (it is ${now}); comments: ${JSON.stringify(comments)}`);
  }
}

/** Runs wait(); on failure says what the drawer and the card showed. */
async function livePage(page, id, wait) {
  try {
    await wait();
  } catch (err) {
    const seen = await page.evaluate((id) => {
      const t = (sel) => document.querySelector(sel)?.textContent ?? null;
      const card = document.querySelector(`[data-testid="task-card"][data-task-id="${id}"]`);
      return {
        output: t('[data-testid="task-run-stream"] [data-testid="run-output"]'),
        runStatus: t('[data-testid="task-run-stream"] [data-testid="run-status"]'),
        taskStatus: document.querySelector('[data-testid="task-status"]')?.getAttribute('data-status'),
        card: card?.getAttribute('data-status'),
        live: !!card?.querySelector('[data-testid="task-live"]'),
        runError: t('[data-testid="task-run-error"]'),
        stream: document.querySelector('[data-testid="task-run-stream"]')?.innerText.slice(0, 600),
      };
    }, id);
    assert.fail(`${err.message}; the page showed ${JSON.stringify(seen)}`);
  }
}

/** Console errors other than the failed requests a test provoked on purpose (a refused move logs a 409). */
const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (409|422)/.test(p));

describe('board', { timeout: 60_000 }, () => {
  test('a code task created in the UI runs on the mock, streams live, and lands in review with its diff and cost', async () => {
    const repo = await makeRepo('app');
    const { page, context, problems } = await openPage(browser, server.url, WIDE);
    try {
      await page.getByTestId('nav-board').click();
      await page.getByTestId('new-task').click();
      const dialog = page.getByTestId('new-task-dialog');
      await dialog.waitFor();
      assert.equal(await page.getByTestId('new-task-kind').inputValue(), 'code', 'code is the default kind');
      await page.getByTestId('new-task-title').fill('Write a hello note');
      await page.getByTestId('new-task-description').fill('Put a greeting in notes/hello.txt.');

      // A folder that is not a repository is refused before anything is created.
      await page.getByTestId('new-task-repo').fill(scratch);
      await page.getByTestId('new-task-submit').click();
      await waitText(page, 'new-task-error', /is not a git repository/);

      // The picker walks folders and marks the repository; "Use" picks it.
      await page.getByTestId('repo-browse').click();
      const entry = page.locator(`[data-testid="repo-entry"][data-path="${repo}"]`);
      await entry.waitFor();
      assert.equal(await entry.getAttribute('data-is-repo'), 'true');
      await page.locator(`[data-testid="repo-entry-use"][data-path="${repo}"]`).click();
      assert.equal(await page.getByTestId('new-task-repo').inputValue(), repo);
      await page.getByTestId('new-task-submit').click();
      await dialog.waitFor({ state: 'hidden' });

      const created = column(page, 'todo').locator('[data-testid="task-card"]', { hasText: 'Write a hello note' });
      await created.waitFor();
      const id = await created.getAttribute('data-task-id');
      assert.match(await created.textContent(), /code/);
      assert.match(await created.textContent(), /app/, 'the card names the repository');

      await created.click();
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${id}"]`);
      assert.equal(await page.evaluate(() => location.hash), `#/board/${id}`);
      await page.waitForSelector('[data-testid="task-run-runtime"] option[value="clawboo-mock"]', { state: 'attached' });
      await page.getByTestId('task-run-runtime').selectOption('clawboo-mock');
      await page
        .getByTestId('task-run-message')
        .fill('!ok started\n!silent 3000\n!write notes/hello.txt hello from the mock\n!cost 0.25\n!ok finished');
      await page.getByTestId('task-run-start').click();

      // Live: the first text is in the drawer while the run still runs, the
      // task is in progress, and its card on the board says it is running.
      await livePage(page, id, () =>
        page.waitForFunction(
        (id) => {
          const s = document.querySelector('[data-testid="task-run-stream"]');
          const card = document.querySelector(`[data-testid="task-card"][data-task-id="${id}"]`);
          return (
            s?.querySelector('[data-testid="run-output"]')?.textContent === 'started' &&
            s.querySelector('[data-testid="run-status"]')?.textContent === 'running' &&
            document.querySelector('[data-testid="task-status"]')?.getAttribute('data-status') === 'in_progress' &&
            card?.getAttribute('data-status') === 'in_progress' &&
            !!card.querySelector('[data-testid="task-live"]')
          );
        },
        id,
        { timeout: 2_800, polling: 'raf' },
      ));

      await waitStatus(page, 'in_review');
      const stream = page.getByTestId('task-run-stream');
      await waitText(page, 'run-status', /^succeeded$/, 5_000, stream);
      // Text after the write is a new paragraph, never glued to the text before it.
      assert.equal(await stream.getByTestId('run-output').textContent(), 'started\n\nfinished');
      assert.ok(await stream.locator('[data-testid="tool-call"][data-tool-name="write_file"]').count(), 'the write shows as a tool call');

      // The diff of its worktree, the cost of its run, and the worktree itself.
      await waitText(page, 'task-diff-file', /^notes\/hello\.txt$/);
      assert.equal(await page.getByTestId('task-diff').getAttribute('data-changed'), 'true');
      assert.match(await page.getByTestId('task-diff-summary').textContent(), /1 file changed,\s*\+1\s*−0/);
      assert.match(await page.getByTestId('task-diff-text').textContent(), /\+hello from the mock/);
      assert.equal(await page.locator('[data-testid="task-diff-text"] .add').first().textContent(), '+hello from the mock');
      await waitText(page, 'task-cost', /^\s*\$0\.25 \(reported\)\s*$/);
      await waitText(page, 'task-run-cost', /^\$0\.25 \(reported\)$/);
      assert.match(await page.getByTestId('task-worktree-branch').textContent(), new RegExp(`clawboo/task-${id}`));
      await waitText(page, 'task-comment', /Changed 1 file/);
      // The card followed the task live, and is no longer running.
      await page.waitForSelector(`[data-testid="board-column-in_review"] [data-task-id="${id}"]:not(:has([data-testid="task-live"]))`);

      // The Spend page counts it: total, per runtime, per kind and today's bar.
      await page.getByTestId('nav-spend').click();
      await waitText(page, 'spend-total', /^\$0\.25 \(reported\)$/);
      const rt = page.locator('[data-testid="spend-by-runtime-row"][data-key="clawboo-mock"]');
      assert.match(await rt.textContent(), /\$0\.25 \(reported\)/);
      assert.match(await page.locator('[data-testid="spend-by-kind-row"][data-key="reported"]').textContent(), /\$0\.25/);
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(await page.locator(`[data-testid="spend-day-bar"][data-day="${today}"]`).getAttribute('data-usd'), '0.25');
      await page.locator(`[data-testid="worktree-row"][data-task-id="${id}"]`).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a failed verification keeps the task in review; dropping it on Done asks for an override, which is recorded', async () => {
    const repo = await makeRepo('verified');
    const { task } = await apiPost('/api/board', {
      title: 'Change without passing checks',
      repoPath: repo,
      verifyCommand: 'test -f missing.txt',
    });
    const run = await apiPost('/api/runtimes/clawboo-mock/run', { taskId: task.id, message: '!write a.txt x', wait: true });
    assert.equal(run.task.status, 'in_review');

    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      const c = card(page, task.id);
      await c.waitFor();
      assert.equal(await c.getAttribute('data-status'), 'in_review');
      assert.equal(await c.getByTestId('task-card-verification').getAttribute('data-state'), 'failed');

      // Done is a legal column, but the server wants an override: its words show, with the way out.
      await c.dragTo(column(page, 'done'));
      await page.waitForSelector('[data-testid="board-error"][data-reason="verification_required"]');
      assert.match(await page.getByTestId('board-error').textContent(), /needs an explicit override/);
      assert.equal(await c.getAttribute('data-status'), 'in_review');

      await page.getByTestId('board-override').click();
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${task.id}"]`);
      const v = page.getByTestId('verification');
      await v.waitFor();
      assert.equal(await v.getAttribute('data-state'), 'failed');
      assert.equal(await page.getByTestId('verification-command').textContent(), 'test -f missing.txt');
      assert.match(await page.getByTestId('verification-result').textContent(), /failed \(exit code 1\)/);

      // The override question is open; a reason is required.
      await page.getByTestId('task-override-reason').waitFor();
      await page.getByTestId('task-override-confirm').click();
      await page.getByText('Say why it is done').waitFor();
      await page.getByTestId('task-override-reason').fill('checked by hand');
      await page.getByTestId('task-override-confirm').click();
      await waitStatus(page, 'done');
      assert.match(await page.getByTestId('task-override-record').textContent(), /checked by hand/);
      // A done task is final: no moves, and its re-read (moves: null from Go) is shown, not refused.
      await page.getByText('Done is final.').waitFor();
      assert.equal(await page.getByTestId('task-move').count(), 0);
      assert.equal(await page.getByTestId('task-reload-error').count(), 0);
      await page.reload();
      await waitStatus(page, 'done');
      assert.equal(await page.getByTestId('task-load-error').count(), 0);
      await page.waitForSelector(`[data-testid="board-column-done"] [data-task-id="${task.id}"]`);
      const saved = await apiGet(`/api/board/${task.id}`);
      assert.equal(saved.task.override.reason, 'checked by hand');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('dragging a card: illegal columns refuse it, a legal one takes it', async () => {
    const { task } = await apiPost('/api/board', { title: 'Someday maybe', status: 'backlog', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      const c = card(page, task.id);
      await c.waitFor();
      assert.equal(await c.getAttribute('data-status'), 'backlog');

      // Mid-drag, the columns say which take the card (backlog → todo, blocked, cancelled).
      const box = await c.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      const target = await column(page, 'in_review').boundingBox();
      await page.mouse.move(target.x + target.width / 2, target.y + 120, { steps: 8 });
      const drops = await page.evaluate(() =>
        Object.fromEntries(
          [...document.querySelectorAll('[data-testid^="board-column-"]')].map((e) => [
            e.getAttribute('data-testid').slice('board-column-'.length),
            e.getAttribute('data-drop'),
          ]),
        ),
      );
      assert.deepEqual(drops, {
        backlog: 'source',
        todo: 'legal',
        in_progress: 'refused',
        in_review: 'refused',
        blocked: 'legal',
        done: 'refused',
        cancelled: 'legal',
      });
      await page.mouse.up();
      await page.waitForSelector('[data-testid="board-column-todo"][data-drop="idle"]');
      assert.equal(await c.getAttribute('data-status'), 'backlog', 'an illegal drop moves nothing');
      assert.equal(await column(page, 'backlog').locator(`[data-task-id="${task.id}"]`).count(), 1);
      assert.equal((await apiGet(`/api/board/${task.id}`)).task.status, 'backlog');

      await c.dragTo(column(page, 'todo'));
      await page.waitForSelector(`[data-testid="board-column-todo"] [data-testid="task-card"][data-task-id="${task.id}"][data-status="todo"]`);
      assert.equal((await apiGet(`/api/board/${task.id}`)).task.status, 'todo');
      assert.equal(await page.getByTestId('board-error').count(), 0);

      // The keyboard way: the drawer's move buttons offer exactly the legal moves.
      await c.click();
      await waitStatus(page, 'todo');
      const moves = await page.getByTestId('task-move').evaluateAll((els) => els.map((e) => e.getAttribute('data-to')));
      assert.deepEqual(moves, ['in_progress', 'blocked', 'backlog', 'cancelled']);
      await page.locator('[data-testid="task-move"][data-to="blocked"]').click();
      await waitStatus(page, 'blocked');
      await page.waitForSelector(`[data-testid="board-column-blocked"] [data-task-id="${task.id}"]`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the drawer: edits, comments, dependencies (a cycle is refused), and a refused run in words', async () => {
    const { task: a } = await apiPost('/api/board', { title: 'Task A', kind: 'research', status: 'backlog' });
    const { task: b } = await apiPost('/api/board', { title: 'Task B', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${a.id}`);
    try {
      await waitText(page, 'task-title', /^Task A$/);
      await page.getByTestId('task-edit').click();
      await page.getByTestId('task-edit-title').fill('Task A, renamed');
      await page.getByTestId('task-edit-description').fill('Now with a description.');
      await page.getByTestId('task-edit-save').click();
      await waitText(page, 'task-title', /^Task A, renamed$/);
      await waitText(page, 'task-description', /Now with a description\./);
      await card(page, a.id).getByText('Task A, renamed').waitFor();

      await page.getByTestId('task-comment-input').fill('a note from a person');
      await page.getByTestId('task-comment-add').click();
      await page.locator('[data-testid="task-comment"][data-author="user"]', { hasText: 'a note from a person' }).waitFor();

      await page.getByTestId('task-dep-input').fill(b.id);
      await page.getByTestId('task-dep-add').click();
      await page.locator(`[data-testid="task-dep"][data-dep-id="${b.id}"]`, { hasText: 'Task B' }).waitFor();

      // A backlog task cannot run: the backend's refusal shows in words, with its reason.
      await page.waitForSelector('[data-testid="task-run-runtime"] option[value="clawboo-mock"]', { state: 'attached' });
      await page.getByTestId('task-run-runtime').selectOption('clawboo-mock');
      await page.getByTestId('task-run-start').click();
      await waitText(page, 'task-run-error', /is backlog/);
      assert.equal(await page.getByTestId('task-run-error').getAttribute('data-reason'), 'conflict');

      // B depending on A would close a cycle.
      await page.evaluate((id) => (location.hash = `#/board/${id}`), b.id);
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${b.id}"]`);
      await page.getByTestId('task-dep-input').fill(a.id);
      await page.getByTestId('task-dep-add').click();
      await waitText(page, 'task-dep-error', /cycle/);

      await page.evaluate((id) => (location.hash = `#/board/${id}`), a.id);
      await page.locator(`[data-testid="task-dep"][data-dep-id="${b.id}"] [data-testid="task-dep-remove"]`).click();
      await page.locator(`[data-testid="task-dep"][data-dep-id="${b.id}"]`).waitFor({ state: 'detached' });
      assert.deepEqual((await apiGet(`/api/board/${a.id}`)).task.dependsOn, []);

      // Escape closes the drawer.
      await page.keyboard.press('Escape');
      await page.getByTestId('task-drawer').waitFor({ state: 'detached' });
      assert.equal(await page.evaluate(() => location.hash), '#/board');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });
});

describe('spend', { timeout: 30_000 }, () => {
  test('a budget created in the editor shows up, follows the stream, and can be deleted', async () => {
    // The page's agents list is read as it opens (and on reconnects), so the agent exists first.
    const { agent } = await apiPost('/api/agents', { name: 'Budgeted', runtime: 'clawboo-mock' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`);
    try {
      await page.getByTestId('budget-form').waitFor();
      // A budget names an agent that exists, chosen from the list of names: a typed name matching none chooses nothing.
      await page.getByTestId('budget-scope').selectOption('agent');
      await page.getByTestId('budget-scope-id').fill('e2e-nobody');
      await page.getByTestId('budget-limit').fill('5');
      await page.getByTestId('budget-save').click();
      await waitText(page, 'budget-form-error', /Choose the agent/);
      await page.getByTestId('budget-scope-id').fill('Budget');
      await page.locator(`[data-testid="budget-scope-id-option"][data-id="${agent.id}"]`).click();
      await page.getByTestId('budget-limit').fill('nonsense');
      await page.getByTestId('budget-save').click();
      await waitText(page, 'budget-form-error', /amount in dollars/);

      await page.getByTestId('budget-limit').fill('5');
      await page.getByTestId('budget-mode').selectOption('warn');
      await page.getByTestId('budget-save').click();
      const row = page.locator(`[data-testid="budget-row"][data-scope="agent"][data-scope-id="${agent.id}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-status'), 'ok');
      assert.equal(await row.getByTestId('budget-spent').textContent(), '$0.00 of $5.00');
      assert.match(await row.textContent(), /warns only/);
      const listed = (await apiGet('/api/budgets')).budgets.find((x) => x.scopeId === agent.id);
      assert.deepEqual([listed.limitUsd, listed.mode], [5, 'warn']);

      // Another client's change arrives live ("budget" events). A team budget names a real team.
      const { team } = await apiPost('/api/teams', { name: 'E2E budget team' });
      await apiPost('/api/budgets', { scope: 'team', scopeId: team.id, limitUsd: 2.5, mode: 'cap' });
      await page.locator(`[data-testid="budget-row"][data-scope="team"][data-scope-id="${team.id}"]`).waitFor();

      await row.getByTestId('budget-delete').click();
      await page.getByTestId('budget-delete-confirm').click();
      await row.waitFor({ state: 'detached' });
      assert.equal((await apiGet('/api/budgets')).budgets.some((x) => x.scopeId === agent.id), false);
      assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
    } finally {
      await context.close();
    }
  });

  test('a capped mission budget pauses live when a run crosses it, and Resume lifts it with grace', async () => {
    const { task } = await apiPost('/api/board', { title: 'Capped mission', kind: 'research' });
    const { page, context, problems } = await openPage(browser, `${server.url}/#/spend`);
    try {
      await page.getByTestId('budget-form').waitFor();
      assert.equal(await page.getByTestId('budget-scope').inputValue(), 'mission');
      await page.getByTestId('budget-scope-id').fill('Capped mission');
      await page.locator(`[data-testid="budget-scope-id-option"][data-id="${task.id}"]`).click();
      await page.getByTestId('budget-limit').fill('0.10');
      await page.getByTestId('budget-save').click();
      const row = page.locator(`[data-testid="budget-row"][data-scope="mission"][data-scope-id="${task.id}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-status'), 'ok');

      // A run of the mission's root task spends past the cap: the page learns it from the stream.
      const run = await apiPost('/api/runtimes/clawboo-mock/run', { taskId: task.id, message: '!cost 0.25\n!ok done', wait: true });
      assert.equal(run.error, 'budget_paused:mission');
      await page.waitForSelector(`[data-testid="budget-row"][data-scope-id="${task.id}"][data-status="paused"]`);
      assert.equal(await row.getByTestId('budget-spent').textContent(), '$0.25 of $0.10');
      await waitText(page, 'budget-crossing', new RegExp(`mission budget ${task.id} reached \\d+%`));

      await row.getByTestId('budget-resume-grace').fill('1');
      await row.getByTestId('budget-resume').click();
      await page.waitForSelector(`[data-testid="budget-row"][data-scope-id="${task.id}"][data-status="ok"]`);
      assert.equal(await row.getByTestId('budget-spent').textContent(), '$0.25 of $1.25');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
