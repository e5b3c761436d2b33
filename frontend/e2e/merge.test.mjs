// Browser tests of the end of a code task's review against a real `clawboo
// serve` with the worktree mock: Merge from the drawer lands the change in
// the repository (the task is done, its branch gone), a conflict is refused
// with its files and offers a rebase, Done on unmerged work is "Close
// without merging" behind a confirmation, and Cancelled asks first.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/merge.test.mjs)

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { apiOk, reviewedTask } from './api.mjs';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';
import { gitIn, makeRepoIn } from './repos.mjs';

const apiPost = (path, body) => apiOk(server, 'POST', path, body);
const apiGet = (path) => apiOk(server, 'GET', path);

requireBin();

let server;
let browser;
let scratch;

useSuite({ scratch: 'clawboo-merge-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

/** A git repository with one commit on main, in the scratch folder. */
const makeRepo = (name) => makeRepoIn(scratch, name);

/** A code task on repo whose mock run wrote with `writes` and ended in review. */
const reviewed = (repo, title, writes) => reviewedTask(server, repo, title, writes);

async function waitStatus(page, status, timeout = 10_000) {
  await page.waitForSelector(`[data-testid="task-drawer"] [data-testid="task-status"][data-status="${status}"]`, { timeout });
}

describe('merge or close a reviewed task', () => {
  test('Merge lands the change on main; the task is done and its branch gone', async () => {
    const repo = await makeRepo('merged');
    const task = await reviewed(repo, 'Add a greeting', '!write hello.txt hello from the mock');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`);
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    try {
      await waitStatus(page, 'in_review');
      // The diff comes before Merge, and Merge sits beside the diff's size.
      await page.getByTestId('task-merge-summary').waitFor();
      assert.match(await page.getByTestId('task-merge-summary').textContent(), /^1 file, \+1\s+−0$/);
      assert.ok(
        await page.evaluate(() => {
          const diff = document.querySelector('[data-testid="task-diff"]');
          const merge = document.querySelector('[data-testid="task-merge-button"]');
          return !!diff && !!merge && !!(diff.compareDocumentPosition(merge) & Node.DOCUMENT_POSITION_FOLLOWING);
        }),
        'the diff comes before the Merge button',
      );
      // What happens beside uncommitted work, said exactly.
      assert.match(
        await page.getByTestId('task-merge-note').textContent(),
        /never switched\). Your uncommitted changes in other files are left as they are; if a file this change\s+touches has uncommitted edits, the merge stops and names it\./,
      );
      // "Close without merging…" must not be offered once the merge answered:
      // watch every render from the click on.
      await page.evaluate(() => {
        window.__closeAfterMerge = false;
        new MutationObserver(() => {
          if (document.querySelector('[data-testid="task-merge-result"]') && document.querySelector('[data-testid="task-move"][data-to="done"]'))
            window.__closeAfterMerge = true;
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      await page.getByTestId('task-merge-strategy').selectOption('squash');
      await page.getByTestId('task-merge-button').click();
      const result = page.getByTestId('task-merge-result');
      await result.waitFor();
      assert.match(await result.textContent(), /Merged into main \(one squashed commit\) at [0-9a-f]{12}\. Your checkout at .* was brought along\./);
      await waitStatus(page, 'done');
      assert.equal((await readFile(join(repo, 'hello.txt'), 'utf8')).trim(), 'hello from the mock');
      assert.equal(gitIn(repo, 'log', '-1', '--format=%s', 'main'), 'Add a greeting');
      assert.equal(gitIn(repo, 'branch', '--list', `clawboo/task-${task.id}`), '');
      assert.equal(gitIn(repo, 'status', '--porcelain'), '');
      await page.getByText('Done is final.').waitFor();
      assert.equal(await page.getByTestId('task-merge-button').count(), 0, 'a done task offers no merge');
      assert.equal(await page.evaluate(() => window.__closeAfterMerge), false, '"Close without merging…" was offered after the merge answered');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a conflict is refused with its files and offers a rebase on the latest base', async () => {
    const repo = await makeRepo('conflicted');
    const task = await reviewed(repo, 'Rewrite the readme', '!write README.md from the agent');
    await writeFile(join(repo, 'README.md'), '# moved on by the user\n');
    gitIn(repo, 'commit', '-qam', 'user edit');
    const main = gitIn(repo, 'rev-parse', 'main');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`);
    try {
      await waitStatus(page, 'in_review');
      await page.getByTestId('task-merge-button').click();
      const err = page.locator('[data-testid="task-merge-error"][data-reason="merge_conflict"]');
      await err.waitFor();
      assert.match(await err.textContent(), /do not apply cleanly/);
      assert.deepEqual(await page.getByTestId('task-merge-conflict').allTextContents(), ['README.md']);
      await page.getByTestId('task-rebase').waitFor();
      assert.equal(gitIn(repo, 'rev-parse', 'main'), main, 'a refused merge moves nothing');
      assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# moved on by the user\n');
      assert.equal((await apiGet(`/api/board/${task.id}`)).task.status, 'in_review');

      // The rebase goes back to the agent: a run on the same worktree.
      await page.getByTestId('task-rebase').click();
      await page.getByText(/Sent back to rebase on main/).waitFor();
      const detail = await apiGet(`/api/board/${task.id}`);
      assert.equal(detail.runs.length, 2, 'a second run was started');
      assert.deepEqual(
        problems.filter((p) => !/409/.test(p)),
        [],
      );
    } finally {
      await context.close();
    }
  });

  test('Done without merging asks first, and keeps the branch; Cancelled asks too', async () => {
    const repo = await makeRepo('closed');
    const task = await reviewed(repo, 'Maybe later', '!write later.txt not now');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`);
    try {
      await waitStatus(page, 'in_review');
      const done = page.locator('[data-testid="task-move"][data-to="done"]');
      assert.equal(await done.textContent(), 'Close without merging…');
      await done.click();
      const dialog = page.getByTestId('task-move-dialog');
      await dialog.getByText('not merged into your repository').waitFor();
      await page.getByTestId('task-move-cancel').click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal((await apiGet(`/api/board/${task.id}`)).task.status, 'in_review', 'saying no moves nothing');

      await done.click();
      await page.getByTestId('task-move-confirm').click();
      await waitStatus(page, 'done');
      assert.ok(gitIn(repo, 'branch', '--list', `clawboo/task-${task.id}`).includes(task.id), 'the unmerged work stays on its branch');
      assert.equal(gitIn(repo, 'ls-files', 'later.txt'), '', 'and is not merged');

      const { task: other } = await apiPost('/api/board', { title: 'Never mind', kind: 'research', status: 'backlog' });
      await page.goto(`${server.url}/#/board/${other.id}`);
      await waitStatus(page, 'backlog');
      await page.locator('[data-testid="task-move"][data-to="cancelled"]').click();
      await page.getByTestId('task-move-dialog').getByText('Cancelled is final').waitFor();
      await page.getByTestId('task-move-confirm').click();
      await waitStatus(page, 'cancelled');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  // Needs the landing helper's backend (baseBranch, merged, GET /branches,
  // merge from done, checkout_overlap): skipped on a server whose tasks
  // carry no `merged` field. The lead runs it after merging both branches.
  test('after the landing merge: the drawer names the base, merges into a picked branch, names overlapping edits, and merges work left done', async (t) => {
    const repo = await makeRepo('landing');
    gitIn(repo, 'branch', 'release');
    const task = await reviewed(repo, 'Greet on release', '!write hello.txt hello');
    if (!('merged' in (await apiGet(`/api/board/${task.id}`)).task)) {
      t.skip('this server has no landing backend (tasks carry no merged field)');
      return;
    }
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board/${task.id}`);
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    try {
      await waitStatus(page, 'in_review');
      // Merge when green is the task's, changed in place.
      await page.getByTestId('task-merge-green').focus();
      await page.keyboard.press('Space');
      await page.waitForFunction(() => /merges it once/.test(document.querySelector('[data-testid="task-merge-green-note"]')?.textContent ?? ''));
      assert.equal((await apiGet(`/api/board/${task.id}`)).task.mergeWhenGreen, true);
      const button = page.getByTestId('task-merge-button');
      await page.waitForFunction(() => document.querySelector('[data-testid="task-merge-button"]')?.textContent === 'Merge into main');
      const base = page.getByTestId('task-merge-base');
      await base.locator('option', { hasText: 'release' }).waitFor({ state: 'attached' });
      assert.deepEqual((await base.locator('option').allTextContents()).sort(), ['main', 'release']);

      // An uncommitted edit to the very file the change adds stops the merge, named.
      await writeFile(join(repo, 'hello.txt'), 'my own edit\n');
      await button.click();
      const err = page.locator('[data-testid="task-merge-error"][data-reason="checkout_overlap"]');
      await err.waitFor();
      assert.deepEqual(await page.getByTestId('task-merge-conflict').allTextContents(), ['hello.txt']);
      assert.equal(await readFile(join(repo, 'hello.txt'), 'utf8'), 'my own edit\n', 'the edit is left byte for byte');
      await rm(join(repo, 'hello.txt'));

      // Picked: release. main is not touched and the checkout stays on main.
      await base.selectOption('release');
      assert.equal(await button.textContent(), 'Merge into release');
      await button.click();
      await page.getByTestId('task-merge-result').waitFor();
      await waitStatus(page, 'done');
      assert.equal(gitIn(repo, 'show', 'release:hello.txt'), 'hello');
      assert.equal(gitIn(repo, 'ls-tree', '--name-only', 'main', 'hello.txt'), '', 'main is left as it was');
      assert.equal(gitIn(repo, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main', 'the checkout was not switched');
      await page.getByTestId('task-merged').waitFor();
      assert.equal(await page.getByTestId('task-merged').getAttribute('data-base'), 'release');

      // Work an earlier build left done and unmerged, its branch still there, can still be merged.
      const left = await reviewed(repo, 'Left behind', '!write later.txt later');
      await fetch(`${server.url}/api/board/${left.id}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'done' }),
      });
      await page.goto(`${server.url}/#/board/${left.id}`);
      await waitStatus(page, 'done');
      await page.getByTestId('task-merge-unmerged').waitFor();
      await page.waitForFunction(() => /^Merge into /.test(document.querySelector('[data-testid="task-merge-button"]')?.textContent ?? ''));
      await page.getByTestId('task-merge-button').click();
      await page.getByTestId('task-merged').waitFor();
      assert.equal((await apiGet(`/api/board/${left.id}`)).task.status, 'done');
      assert.deepEqual(
        problems.filter((p) => !/409/.test(p)),
        [],
      );
    } finally {
      await context.close();
    }
  });
});
