// Browser test of the Settings page against a real `clawboo serve` with the
// worktree mock: the worktrees on disk with their tasks, the disk budget
// (saved in bytes, refused in words), the port range, keyboard reach, and a
// real janitor report: two finished code tasks with an ignored node_modules
// each and a budget one of them is over, so the first janitor pass (30 s
// after start) prunes both and pauses the oldest.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/settings.test.mjs)

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { apiOk } from './api.mjs';
import { gitIn, makeRepoIn } from './repos.mjs';

requireBin();

let server;
let browser;
let scratch;
/** The two reviewed tasks, oldest first, and their worktree folders. */
let big;
let small;

const api = (method, path, body) => apiOk(server, method, path, body);

/** A code task on repo whose mock run wrote a file and ended in review, with its worktree folder. */
async function reviewed(repo, title) {
  const { task } = await api('POST', '/api/board', { title, repoPath: repo });
  const run = await api('POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id, message: `!write ${task.id}.txt hi`, wait: true });
  assert.equal(run.task.status, 'in_review');
  const row = (await api('GET', '/api/worktrees')).worktrees.find((w) => w.taskId === task.id);
  assert.ok(row, `no worktree on disk for ${task.id}`);
  await mkdir(join(row.path, 'node_modules', 'left-pad'), { recursive: true });
  await writeFile(join(row.path, 'node_modules', 'left-pad', 'index.js'), 'x'.repeat(100_000));
  return { ...task, path: row.path };
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'clawboo-settings-e2e-'));
  server = await startServer({ mockWorktrees: true });
  browser = await launchBrowser();
  const repo = await makeRepoIn(scratch, 'app');
  await writeFile(join(repo, '.gitignore'), 'node_modules/\n');
  gitIn(repo, 'add', '.gitignore');
  gitIn(repo, 'commit', '-q', '-m', 'ignore node_modules');
  big = await reviewed(repo, 'Bundle the assets');
  small = await reviewed(repo, 'Fix the typo');
  // Untracked, not ignored: stays after pruning and puts the older worktree over the budget.
  await writeFile(join(big.path, 'assets.bin'), 'y'.repeat(60_000));
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function openSettings() {
  const opened = await openPage(browser, `${server.url}/#/settings`);
  opened.page.on('response', (r) => r.status() >= 400 && opened.problems.push(`${r.status()} ${r.request().method()} ${r.url()}`));
  await opened.page.getByTestId('settings-page').waitFor();
  return opened;
}

describe('settings page', () => {
  test('the worktrees, the disk budget and the port range, by keyboard', async () => {
    const { page, context, problems } = await openSettings();
    try {
      assert.equal(await page.getByTestId('nav-settings').getAttribute('aria-current'), 'page');
      const row = page.locator(`[data-testid="disk-row"][data-task-id="${big.id}"]`);
      await row.waitFor();
      assert.equal(await row.getByRole('link', { name: 'Bundle the assets' }).getAttribute('href'), `#/board/${big.id}`);
      assert.match(await row.textContent(), /in review/);
      assert.equal(await page.getByTestId('disk-row').count(), 2);
      assert.ok(Number(await page.getByTestId('disk-total').getAttribute('data-bytes')) > 260_000);
      assert.match(await page.getByTestId('disk-dep-folders').textContent(), /node_modules/);
      assert.equal((await api('GET', '/api/worktrees')).janitor, null, 'the janitor ran before the test set its budget');
      await page.getByTestId('janitor-empty').waitFor();

      // The default budget, shown in GB.
      await page.locator('[data-testid="budget-form"][data-saved="10737418240"]').waitFor();
      assert.equal(await page.getByTestId('budget-input').inputValue(), '10');

      // 500 MB, typed and saved with the keyboard alone.
      const input = page.getByLabel('Disk budget per repository');
      await input.fill('500');
      await page.getByLabel('Unit').selectOption('MB');
      await input.press('Enter');
      assert.equal(await page.getByTestId('budget-saved').textContent(), 'Saved: 500 MB per repository.');
      assert.equal((await api('GET', '/api/settings/worktree-budget')).bytesPerRepo, 524_288_000);

      // Words, not a request, for what is not a size.
      await input.fill('lots');
      await page.getByTestId('budget-save').click();
      assert.equal(await page.getByTestId('budget-error').textContent(), '“lots” is not a size: type a number, like 500, in MB, or leave it empty for none.');
      assert.equal(await input.getAttribute('aria-invalid'), 'true');
      await input.fill('-3');
      await page.getByTestId('budget-save').click();
      assert.match(await page.getByTestId('budget-error').textContent(), /cannot be negative/);
      assert.equal((await api('GET', '/api/settings/worktree-budget')).bytesPerRepo, 524_288_000);

      // A budget the older worktree is over (0.02 MB = 20972 bytes), for the janitor below.
      await input.fill('0.02');
      await input.press('Enter');
      await page.getByTestId('budget-saved').waitFor();
      assert.equal((await api('GET', '/api/settings/worktree-budget')).bytesPerRepo, 20_972);

      // The port range: the default, a refusal in words, then a new range.
      assert.equal(await page.getByLabel('First port').inputValue(), '41000');
      assert.match(await page.getByTestId('ports-now').textContent(), /ports 41000–41999, 10 per worktree: 100 worktrees at once/);
      await page.getByLabel('First port').fill('80');
      await page.getByTestId('ports-save').click();
      assert.equal(await page.getByTestId('ports-error').textContent(), 'The first port, 80, is reserved for the system: use 1024 or more.');
      await page.getByLabel('First port').fill('42000');
      await page.getByLabel('Last port').fill('42099');
      await page.getByLabel('Ports per worktree').fill('200');
      await page.getByTestId('ports-save').click();
      assert.equal(await page.getByTestId('ports-error').textContent(), 'Ports 42000–42099 are fewer than one block of 200.');
      await page.getByLabel('Ports per worktree').fill('5');
      await page.getByLabel('Ports per worktree').press('Enter');
      assert.match(await page.getByTestId('ports-saved').textContent(), /new worktrees lease ports 42000–42099, 5 per worktree: 20 worktrees at once/);
      assert.equal(await page.getByTestId('ports-error').count(), 0);
      assert.deepEqual(await api('GET', '/api/settings/port-range'), { first: 42000, last: 42099, block: 5 });

      // Every control is reached with Tab, in reading order.
      await page.getByRole('heading', { name: 'Settings' }).click();
      const reached = [];
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('Tab');
        reached.push(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') || document.activeElement?.id || document.activeElement?.tagName));
      }
      const order = ['disk-refresh', 'budget-input', 'budget-unit', 'budget-save', 'ports-first', 'ports-last', 'ports-block', 'ports-save'];
      const at = order.map((id) => reached.indexOf(id));
      assert.ok(at.every((i) => i >= 0), `not reached by Tab: ${order.filter((_, k) => at[k] < 0)} in ${reached}`);
      assert.deepEqual([...at].sort((a, b) => a - b), at, `Tab order: ${reached}`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the routines’ missed-fire grace window: the default, a refusal in words, a new window', async () => {
    const { page, context, problems } = await openSettings();
    try {
      const input = page.getByLabel('Grace window (minutes)');
      await page.locator('[data-testid="grace-now"]').waitFor();
      assert.equal(await input.inputValue(), '60');
      assert.match(await page.getByTestId('grace-now').textContent(), /up to 1 hour runs once at start-up/);
      await input.fill('2000');
      await input.press('Enter');
      assert.equal(await page.getByTestId('grace-error').textContent(), 'The grace window is at most 1440 minutes (a day).');
      assert.equal((await api('GET', '/api/settings/routine-grace')).minutes, 60);
      await input.fill('90');
      await input.press('Enter');
      assert.match(await page.getByTestId('grace-saved').textContent(), /up to 90 minutes/);
      assert.equal((await api('GET', '/api/settings/routine-grace')).minutes, 90);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the janitor’s report: folders pruned, the oldest worktree paused for the budget', { timeout: 90_000 }, async () => {
    const deadline = Date.now() + 60_000;
    let disk;
    while (!(disk = await api('GET', '/api/worktrees')).janitor && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    assert.ok(disk.janitor, 'the janitor reported nothing within a minute of start');
    assert.equal(existsSync(join(small.path, 'node_modules')), false, 'node_modules was not pruned');
    assert.equal(existsSync(small.path), true, 'the worktree within the budget was removed');
    assert.equal(existsSync(big.path), false, 'the worktree over the budget was kept');

    const { page, context, problems } = await openSettings();
    try {
      const summary = page.getByTestId('janitor-summary');
      await summary.waitFor();
      assert.match(await summary.textContent(), /^Reclaimed \d+(\.\d)? KB from 2 worktrees at (\d{4}-\d\d-\d\d )?\d\d:\d\d$/);
      const entries = page.getByTestId('janitor-entries');
      assert.equal(await entries.isVisible(), false, 'the details show before they are asked for');
      await summary.focus();
      await page.keyboard.press('Enter');
      await entries.waitFor();
      const pruned = page.locator(`[data-testid="janitor-entry"][data-task-id="${small.id}"][data-removed="false"]`);
      assert.match(await pruned.textContent(), /Fix the typo\s*pruned\s*node_modules\s*worktree kept\s*\d+ KB/);
      const removed = page.locator(`[data-testid="janitor-entry"][data-task-id="${big.id}"][data-removed="true"]`);
      // Its worktree is gone from disk, and the report still names its task.
      assert.match(await removed.textContent(), /Bundle the assets\s*worktree removed/);
      assert.equal(await removed.getByRole('link').getAttribute('href'), `#/board/${big.id}`);
      assert.equal(await page.getByTestId('disk-row').count(), 1);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an MCP server is added as the command it is: warned first, listed with its exact command line, removed', async () => {
    const { page, context, problems } = await openSettings();
    try {
      const section = page.getByTestId('settings-tools');
      await section.getByTestId('tool-servers-empty').waitFor();
      assert.match(await section.getByTestId('tool-server-warning').textContent(), /will run on this computer as you, now and at every start/);
      await section.getByLabel('Name', { exact: true }).fill('greeter');
      await section.getByLabel('Program').fill('/bin/sh');
      await section.getByLabel('Arguments, one per line').fill("-c\necho 'hi there'");
      await section.getByTestId('tool-server-add').click();
      const row = section.locator('[data-testid="tool-server"][data-name="greeter"]');
      await row.waitFor();
      // Exactly what runs, quoted as a shell reads it (not an MCP server, so it failed to start: said in words).
      assert.equal(await row.getByTestId('tool-server-command').textContent(), `/bin/sh -c 'echo '\\''hi there'\\'''`);
      assert.match(await section.getByTestId('tool-server-note').textContent(), /Added greeter/);
      const listed = (await api('GET', '/api/tools/servers')).servers;
      assert.equal(listed[0].commandLine, await row.getByTestId('tool-server-command').textContent());
      await row.getByTestId('tool-server-remove').click();
      await page.getByTestId('tool-server-remove-confirm').click();
      await row.waitFor({ state: 'detached' });
      assert.deepEqual((await api('GET', '/api/tools/servers')).servers, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
