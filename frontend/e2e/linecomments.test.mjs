// Browser tests of line comments on a task's diff against a real `clawboo
// serve` with the worktree mock: a task in review with a diff, a comment on
// one of its lines made with the keyboard alone, shown under that line, and
// "Request changes", which starts a new run on the same worktree that the
// drawer streams, and marks the comment sent; a general request goes back
// with or without line comments.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/linecomments.test.mjs)

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';
import { apiOk } from './api.mjs';
import { makeRepoIn } from './repos.mjs';

requireBin();

/** Types text into the focused composer, each line break as Shift+Enter (Enter alone sends). */
async function typeLines(page, text) {
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (i) await page.keyboard.press('Shift+Enter');
    await page.keyboard.type(line);
  }
}

let server;
let browser;
let scratch;

useSuite({ scratch: 'clawboo-linecomments-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

/** A git repository with one commit on main, in the scratch folder. */
const makeRepo = (name) => makeRepoIn(scratch, name);

const api = (method, path, body) => apiOk(server, method, path, body);

/** A code task in review whose diff adds hello.txt, made by the mock. */
async function taskInReview(title) {
  const repo = await makeRepo(title.replace(/\W+/g, '-'));
  const { task } = await api('POST', '/api/board', { title, description: '!write hello.txt hi', repoPath: repo, kind: 'code' });
  const run = await api('POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id });
  assert.equal(run.task?.status, 'in_review', JSON.stringify(run));
  return { id: task.id, firstRun: run.runId };
}

const activeTestid = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);

describe('line comments', { timeout: 60_000 }, () => {
  test('comment on a diff line with the keyboard, see it under the line, send it back, and watch the new run', async () => {
    const { id, firstRun } = await taskInReview('Say hi');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${id}`, { viewport: { width: 1400, height: 1000 } });
    try {
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${id}"] [data-testid="task-diff-file"]`);
      assert.equal(await page.getByTestId('task-diff-file').first().textContent(), 'hello.txt');
      const sendBack = page.getByTestId('diff-send-back');
      assert.ok(await sendBack.isDisabled(), 'nothing to send yet');

      const gutter = page.locator('[data-testid="diff-line-gutter"][data-path="hello.txt"][data-side="new"][data-line="1"]');
      assert.equal(await gutter.count(), 1, 'the added line has a gutter button');

      // Keyboard only: focus the line's button, Enter opens the form with
      // the focus in it; Escape closes it and gives the focus back.
      await gutter.focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('line-comment-form').waitFor();
      assert.equal(await activeTestid(page), 'line-comment-input');
      await page.keyboard.type('never mind');
      await page.keyboard.press('Escape');
      await page.getByTestId('line-comment-form').waitFor({ state: 'detached' });
      assert.equal(await activeTestid(page), 'diff-line-gutter');
      assert.equal(await page.getByTestId('line-comment').count(), 0);

      // Space opens it too; Enter saves (Shift+Enter is a new line). The comment's further lines
      // are mock directives, so the new run shows it got the comments.
      await page.keyboard.press('Space');
      await page.getByTestId('line-comment-form').waitFor();
      await typeLines(page, 'Say hello properly.\n!silent 1500\n!write reviewed.txt fixed\n!ok addressed the review');
      await page.keyboard.press('Enter');
      await page.getByTestId('line-comment-form').waitFor({ state: 'detached' });
      assert.equal(await activeTestid(page), 'diff-line-gutter');

      // Under its line, unsent, and counted.
      const comment = page.getByTestId('line-comment');
      await comment.waitFor();
      const underLine = await page.evaluate(() => {
        const g = document.querySelector('[data-testid="diff-line-gutter"][data-path="hello.txt"][data-line="1"]');
        return !!g?.closest('.row')?.nextElementSibling?.querySelector('[data-testid="line-comment"]');
      });
      assert.ok(underLine, 'the comment renders right under its line');
      assert.match(await comment.getByTestId('line-comment-body').textContent(), /^Say hello properly\./);
      assert.equal(await comment.getAttribute('data-sent'), 'false');
      assert.match(await page.getByTestId('diff-unsent').textContent(), /1 unsent comment\b/);
      const stored = (await api('GET', `/api/board/${id}/line-comments`)).comments;
      assert.deepEqual(
        stored.map((c) => [c.path, c.line, c.side, c.sentRunId]),
        [['hello.txt', 1, 'new', null]],
      );

      // Send back (from the keyboard too): a new run starts and the drawer streams it.
      assert.ok(await sendBack.isEnabled());
      await sendBack.focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(
        (first) => {
          const s = document.querySelector('[data-testid="task-run-stream"]');
          const run = s?.getAttribute('data-run-id');
          return !!run && run !== first && s.querySelector('[data-testid="run-status"]')?.textContent === 'running';
        },
        firstRun,
        { timeout: 5_000 },
      );
      const newRun = await page.getByTestId('task-run-stream').getAttribute('data-run-id');
      await page.waitForSelector('[data-testid="line-comment"][data-sent="true"]');
      assert.match(await page.getByTestId('line-comment-sent').textContent(), /Sent to the agent/);
      assert.equal(await page.getByTestId('line-comment-author').first().textContent(), 'You');
      assert.ok(!(await page.getByTestId('line-comment').first().innerText()).includes(newRun), 'the run id stays behind a disclosure');
      assert.ok(await sendBack.isDisabled(), 'nothing left to send');

      // It ends, the task is back in review, the comment stays (sent with that run).
      const stream = page.getByTestId('task-run-stream');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="task-run-stream"] [data-testid="run-status"]')?.textContent === 'succeeded',
        null,
        { timeout: 10_000 },
      );
      assert.match(await stream.getByTestId('run-output').textContent(), /addressed the review/);
      await page.waitForSelector('[data-testid="task-drawer"] [data-testid="task-status"][data-status="in_review"]', { timeout: 10_000 });
      await page.waitForFunction(
        () => [...document.querySelectorAll('[data-testid="task-diff-file"]')].some((f) => f.textContent === 'reviewed.txt'),
        null,
        { timeout: 10_000 },
      );
      const after = (await api('GET', `/api/board/${id}/line-comments`)).comments;
      assert.equal(after.length, 1);
      assert.equal(after[0].sentRunId, newRun);
      const detail = await api('GET', `/api/board/${id}`);
      assert.equal((await readFile(join(detail.worktree.path, 'reviewed.txt'), 'utf8')).trim(), 'fixed', 'the new run worked in the same worktree');
      assert.equal(await page.getByTestId('line-comment').count(), 1, 'the comment stays on the task');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a refused comment says why, and an unsent one can be removed', async () => {
    const { id } = await taskInReview('Remove me');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${id}`, { viewport: { width: 1400, height: 1000 } });
    try {
      const gutter = page.locator('[data-testid="diff-line-gutter"][data-path="hello.txt"][data-line="1"]');
      await gutter.waitFor();
      await gutter.click();
      await page.getByTestId('line-comment-input').fill('x'.repeat(8 * 1024 + 1));
      await page.getByTestId('line-comment-too-long').waitFor();
      await page.getByTestId('line-comment-input').fill('drop this');
      await page.getByTestId('line-comment-save').click();
      await page.getByTestId('line-comment').waitFor();
      await page.getByTestId('line-comment-delete').click();
      await page.getByTestId('line-comment').waitFor({ state: 'detached' });
      assert.deepEqual((await api('GET', `/api/board/${id}/line-comments`)).comments, []);
      assert.ok(await page.getByTestId('diff-send-back').isDisabled());
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('Request changes sends a general message back without line comments, and the agent acts on it', async () => {
    const { id, firstRun } = await taskInReview('Ask in general');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${id}`, { viewport: { width: 1280, height: 800 } });
    try {
      const send = page.getByTestId('diff-send-back');
      await send.waitFor();
      assert.equal(await send.textContent(), 'Request changes');
      assert.ok(await send.isDisabled(), 'nothing to send yet');
      // Keyboard only: the request box, then Enter sends it (Shift+Enter: a new line).
      await page.getByTestId('diff-request').focus();
      await typeLines(page, 'Also say goodbye.\n!write bye.txt bye\n!ok said goodbye');
      assert.ok(await send.isEnabled(), 'a request alone is enough');
      assert.match(await page.getByTestId('diff-unsent').textContent(), /Your request goes back to the agent/);
      await page.keyboard.press('Enter');
      await page.waitForFunction(
        (first) => {
          const r = document.querySelector('[data-testid="task-run-stream"]')?.getAttribute('data-run-id');
          return !!r && r !== first;
        },
        firstRun,
        { timeout: 5_000 },
      );
      await page.waitForFunction(
        () => [...document.querySelectorAll('[data-testid="task-diff-file"]')].some((f) => f.textContent === 'bye.txt'),
        null,
        { timeout: 10_000 },
      );
      // The box empties when the send's answer arrives, which may come after the new run's stream does.
      await page.waitForFunction(() => document.querySelector('[data-testid="diff-request"]')?.value === '', null, { timeout: 5_000 });
      assert.deepEqual((await api('GET', `/api/board/${id}/line-comments`)).comments, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
