// Browser tests of the task drawer of a task in review, against a real
// `clawboo serve` with the worktree mock: "Open in terminal" and "Open in
// editor" answer a command to copy in a browser (the worktree's own path,
// quoted), "Open preview" shows only while something listens on the task's
// first leased port, Run is not offered in review (and says why), and the
// shown run is headed by the task's title, not an id. Keyboard only.
// Screenshots of the drawer at 1280×800 and 800×600 go to $UI_SCREENSHOTS
// when it is set.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/drawer-open.test.mjs)

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';
import { apiOk } from './api.mjs';
import { makeRepoIn } from './repos.mjs';

requireBin();

const SHOTS = process.env.UI_SCREENSHOTS || '';

let server;
let browser;
let scratch;

useSuite({ scratch: 'clawboo-drawer-open-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

const api = (method, path, body) => apiOk(server, method, path, body);

/** A code task the mock left in review with a diff adding hello.txt. */
async function taskInReview(title) {
  const repo = await makeRepoIn(scratch, title.replace(/\W+/g, '-'));
  const { task } = await api('POST', '/api/board', { title, description: '!write hello.txt hi\n!ok wrote it', repoPath: repo, kind: 'code' });
  const run = await api('POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id });
  assert.equal(run.task?.status, 'in_review', JSON.stringify(run));
  return (await api('GET', `/api/board/${task.id}`)).worktree;
}

/** Presses Enter on a button reached by the keyboard's focus. */
async function press(page, testid) {
  await page.getByTestId(testid).focus();
  await page.keyboard.press('Enter');
}

describe('the drawer opens the work', { timeout: 60_000 }, () => {
  test('Open in terminal and in editor answer the worktree as a command to copy; preview only while its port listens', async () => {
    const wt = await taskInReview('Open the work');
    const id = wt.taskId;
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${id}`, { viewport: { width: 1280, height: 800 } });
    let listener;
    try {
      await page.getByTestId('task-open').waitFor();
      assert.equal(await page.getByTestId('task-open').getAttribute('data-desktop'), 'false', 'a browser is not the desktop');

      // Run is not offered in review, and the drawer says why.
      assert.match(await page.getByTestId('task-run-in-review').textContent(), /In review: merge it, request changes, or move it back to To do/);
      assert.equal(await page.getByTestId('task-run-start').count(), 0);

      // The shown run is named by its task's title, never its id.
      await page.locator('[data-testid="task-run-stream"] [data-testid="run-name"]').waitFor();
      assert.equal(await page.locator('[data-testid="task-run-stream"] [data-testid="run-name"]').textContent(), 'Open the work');
      assert.equal(await page.locator('[data-testid="task-run-stream"] [data-testid="run-id"]').isVisible(), false, 'the run id stays behind a disclosure');

      await press(page, 'task-open-terminal');
      await page.getByTestId('task-open-command').waitFor();
      assert.equal(await page.getByTestId('task-open-command').textContent(), `cd '${wt.path}' && $SHELL`);
      await page.getByTestId('task-open-copy').waitFor();
      await press(page, 'task-open-editor');
      await page.waitForFunction((p) => document.querySelector('[data-testid="task-open-command"]')?.textContent === `code '${p}'`, wt.path);

      // No server on its first port yet: no preview offered.
      assert.ok(wt.ports?.length > 0, `the worktree leased ports: ${JSON.stringify(wt)}`);
      assert.equal(await page.getByTestId('task-open-preview').count(), 0);
      if (SHOTS) {
        await mkdir(SHOTS, { recursive: true });
        await page.screenshot({ path: join(SHOTS, 'drawer-1280.png') });
      }

      // Its setup's server starts: the drawer offers the preview once it reads the task again.
      listener = createServer((c) => c.end());
      await new Promise((ok, fail) => listener.once('error', fail).listen(wt.ports[0], '127.0.0.1', ok));
      await page.reload();
      await page.getByTestId('task-open-preview').waitFor();
      await press(page, 'task-open-preview');
      const link = page.locator('[data-testid="task-open-url"] a');
      await link.waitFor();
      assert.equal(await link.getAttribute('href'), `http://127.0.0.1:${wt.ports[0]}`);

      if (SHOTS) {
        await page.setViewportSize({ width: 800, height: 600 });
        await page.getByTestId('task-merge').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, 'drawer-800.png') });
      }
      assert.deepEqual(problems, []);
    } finally {
      listener?.close();
      await context.close();
    }
  });
});
