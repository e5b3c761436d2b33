// Browser tests of the critic's UI against a real `clawboo serve` with the
// worktree mock: a team's "Critic reviews risky tasks" switch, a code task
// created with Critic = Always in a real git repository, its run, and the
// drawer listing the critic's review runs ("Critic review", each opening
// its stream like any run), its finding as a comment, and the drawer's
// critic select changing the task. The mock critic answers with the task
// description's `!critic <json>` lines, one per review round.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/critic.test.mjs)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';
import { apiOk } from './api.mjs';
import { makeRepoIn } from './repos.mjs';

requireBin();

let server;
let browser;
let scratch;

useSuite({ scratch: 'clawboo-critic-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

const api = (method, path, body) => apiOk(server, method, path, body);

/** Waits until fn (run in the page) is true, failing with what the drawer showed. */
async function until(page, fn, arg, timeout = 15_000) {
  try {
    await page.waitForFunction(fn, arg, { timeout });
  } catch (err) {
    const drawer = await page.evaluate(() => document.querySelector('[data-testid="task-drawer"]')?.innerText.slice(0, 1500));
    assert.fail(`${err.message}; the drawer showed ${JSON.stringify(drawer)}`);
  }
}

const WIDE = { viewport: { width: 1400, height: 1000 } };

// The first review blocks (missing_ac), the fix run follows, the second passes.
const DESCRIPTION = [
  'Write hello.txt.',
  '!critic {"findings":[{"severity":"missing_ac","file":"hello.txt","note":"hello.txt says too little"}]}',
  '!critic {"findings":[]}',
].join('\n');

describe('critic', { timeout: 90_000 }, () => {
  test('a team turns the critic off in its card, and the New Task form says what auto means then', async () => {
    const { team } = await api('POST', '/api/teams', { name: 'Careful crew' });
    assert.equal(team.critic, true, 'a new team has the critic on');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/teams`, WIDE);
    try {
      const box = page.locator(`[data-testid="team-card"][data-team-id="${team.id}"] [data-testid="team-critic"]`);
      await box.waitFor();
      assert.equal(await box.isChecked(), true);
      await box.uncheck();
      await until(page, (id) => !document.querySelector(`[data-testid="team-card"][data-team-id="${id}"][aria-busy="true"]`), team.id);
      assert.equal((await api('GET', `/api/teams/${team.id}`)).team.critic, false);
      // After a reload the card reads it back.
      await page.reload();
      await box.waitFor();
      assert.equal(await box.isChecked(), false);

      await page.goto(`${server.url}/#/board`);
      await page.getByTestId('new-task').click();
      await page.getByTestId('new-task-dialog').waitFor();
      assert.equal(await page.getByTestId('new-task-critic').inputValue(), 'auto', 'auto is the default');
      await page.getByTestId('new-task-team').selectOption(team.id);
      assert.match(await page.getByTestId('new-task-critic-note').textContent(), /auto means no review for this team/);
      await page.getByTestId('new-task-critic').selectOption('on');
      assert.equal(await page.getByTestId('new-task-critic-note').count(), 0);
      await page.getByTestId('new-task-cancel').click();

      await page.goto(`${server.url}/#/teams`);
      await box.check();
      await until(page, (id) => !document.querySelector(`[data-testid="team-card"][data-team-id="${id}"][aria-busy="true"]`), team.id);
      assert.equal((await api('GET', `/api/teams/${team.id}`)).team.critic, true);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a task with Critic = Always runs, and the drawer lists its reviews, their finding and its setting', async () => {
    const repo = await makeRepoIn(scratch, 'greeter');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, WIDE);
    try {
      await page.getByTestId('new-task').click();
      await page.getByTestId('new-task-dialog').waitFor();
      await page.getByTestId('new-task-title').fill('Greet the reader');
      await page.getByTestId('new-task-description').fill(DESCRIPTION);
      await page.getByTestId('new-task-repo').fill(repo);
      await page.getByTestId('new-task-verify').fill('test -f hello.txt');
      await page.getByTestId('new-task-critic').selectOption('on');
      await page.getByTestId('new-task-submit').click();
      await page.getByTestId('new-task-dialog').waitFor({ state: 'hidden' });

      const card = page.locator('[data-testid="task-card"]', { hasText: 'Greet the reader' });
      await card.waitFor();
      const id = await card.getAttribute('data-task-id');
      assert.equal((await api('GET', `/api/board/${id}`)).task.critic, 'on', 'the form sent critic: on');

      await card.click();
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${id}"]`);
      assert.equal(await page.getByTestId('task-critic').inputValue(), 'on', 'the drawer shows the setting');
      await page.waitForSelector('[data-testid="task-run-runtime"] option[value="clawboo-mock"]', { state: 'attached' });
      await page.getByTestId('task-run-runtime').selectOption('clawboo-mock');
      await page.getByTestId('task-run-message').fill('!write hello.txt hi');
      await page.getByTestId('task-run-start').click();

      // In review, ready to merge, after two reviews and a fix run between
      // them (a verified change lands only when merged): the drawer lists
      // the two reviews as "Critic review", the task's two runs unlabelled.
      await until(
        page,
        () =>
          document.querySelector('[data-testid="task-status"]')?.getAttribute('data-status') === 'in_review' &&
          document.querySelectorAll('[data-testid="task-run-row"]').length === 4,
      );
      const rows = await page.$$eval('[data-testid="task-run-row"]', (rs) =>
        rs.map((r) => ({ id: r.getAttribute('data-run-id'), role: r.querySelector('[data-testid="task-run-role"]')?.textContent ?? '' })),
      );
      assert.deepEqual(
        rows.map((r) => r.role),
        ['Critic review', '', 'Critic review', ''],
        'newest first: review 2, the fix run, review 1, the first run',
      );
      const detail = await api('GET', `/api/board/${id}`);
      assert.deepEqual(
        detail.runs.map((r) => [r.id, r.role, r.taskId]),
        rows.map((r) => [r.id, r.role ? 'critic' : 'task', r.role ? null : id]),
      );

      // A review opens its stream like any run: the critic's answer.
      const firstReview = rows[2].id;
      await page.locator(`[data-testid="task-run-row"][data-run-id="${firstReview}"]`).click();
      await until(
        page,
        (rid) => {
          const s = document.querySelector('[data-testid="task-run-stream"]');
          return s?.getAttribute('data-run-id') === rid && /says too little/.test(s.querySelector('[data-testid="run-output"]')?.textContent ?? '');
        },
        firstReview,
      );

      // Its finding, and the fix run it asked for, are comments.
      const comments = await page.$$eval('[data-testid="task-comment"]', (cs) => cs.map((c) => c.textContent).join('\n'));
      assert.match(comments, /\[missing_ac\][^\n]*hello\.txt says too little/);
      assert.match(comments, /sending a fix run \(1 of 2\)/);

      // The setting changes in place.
      await page.getByTestId('task-critic').selectOption('off');
      await until(page, () => /never/.test(document.querySelector('[data-testid="task-critic-note"]')?.textContent ?? ''));
      assert.equal((await api('GET', `/api/board/${id}`)).task.critic, 'off');
      await page.getByTestId('task-critic').selectOption('auto');
      await until(page, () => /risky/.test(document.querySelector('[data-testid="task-critic-note"]')?.textContent ?? ''));
      assert.equal((await api('GET', `/api/board/${id}`)).task.critic, 'auto');
      // It says when the critic runs, as the supervisor does it: only after a passing verify command.
      const note = await page.getByTestId('task-critic-note').textContent();
      assert.match(note, /after its verify command passes/);
      assert.match(note, /no verify command .* there is no review/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
