// Browser test of the conflict radar against a real `clawboo serve` with
// the worktree mock: two code tasks on one repository that write the same
// file show "overlaps with <the other>" on both cards, and the drawer lists
// the file, where the changes meet and the suggested merge order; a task on
// another file is flagged nowhere.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/radar.test.mjs)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { reviewedTask } from './api.mjs';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';
import { makeRepoIn } from './repos.mjs';


requireBin();

let server;
let browser;
let scratch;

useSuite({ scratch: 'clawboo-radar-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

/** A git repository with one commit on main, in the scratch folder. */
const makeRepo = (name) => makeRepoIn(scratch, name);

/** A code task on repo whose mock run wrote with `writes` and ended in review. */
const reviewed = (repo, title, writes) => reviewedTask(server, repo, title, writes);

const card = (page, id) => page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);

describe('conflict radar', () => {
  test('two tasks writing one file are flagged on both cards and in the drawer', async () => {
    const repo = await makeRepo('radar');
    const one = await reviewed(repo, 'Greet in English', '!write greeting.txt hello');
    const two = await reviewed(repo, 'Greet in French', '!write greeting.txt bonjour');
    const three = await reviewed(repo, 'Write the notes', '!write notes.txt unrelated');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`);
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    try {
      const badge1 = card(page, one.id).getByTestId('task-card-overlap');
      const badge2 = card(page, two.id).getByTestId('task-card-overlap');
      await badge1.waitFor({ timeout: 15_000 });
      await badge2.waitFor({ timeout: 15_000 });
      assert.match(await badge1.textContent(), /overlaps with “Greet in French”/);
      assert.match(await badge2.textContent(), /overlaps with “Greet in English”/);
      assert.equal(await card(page, three.id).getByTestId('task-card-overlap').count(), 0, 'another file is no overlap');

      await card(page, two.id).click();
      const radar = page.locator(`[data-testid="task-drawer"][data-task-id="${two.id}"] [data-testid="task-radar"]`);
      await radar.waitFor({ timeout: 15_000 });
      assert.match(await radar.getByTestId('task-radar-other').textContent(), /Greet in English/);
      assert.deepEqual(await radar.getByTestId('task-radar-file').evaluateAll((els) => els.map((e) => e.dataset.path)), ['greeting.txt']);
      // Both add the new file: the same place, at the top.
      assert.match(await radar.getByTestId('task-radar-hunk').textContent(), /here at the top, there at the top/);
      const order = await radar.getByTestId('task-radar-order').locator('li').allTextContents();
      assert.equal(order.length, 2);
      assert.ok(order.some((t) => /Greet in French \(this task\)/.test(t)), order.join(' | '));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
