// Browser test of task secrets against a real `clawboo serve` (file vault):
// a secret stored from Settings → Secrets by keyboard (its value never
// shown again, refused names in words), chosen for a task in the New Task
// dialog, shown and changed in the drawer, and deleted behind a
// confirmation; the drawer then says the task's name is missing.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/secrets.test.mjs)

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { apiOk } from './api.mjs';
import { makeRepoIn } from './repos.mjs';

requireBin();

const VALUE = 'rk_test_E2E_SECRET_VALUE_93';
let server;
let browser;
let scratch;

const api = (method, path, body) => apiOk(server, method, path, body);

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'clawboo-secrets-e2e-'));
  server = await startServer({ mockWorktrees: true });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('task secrets', () => {
  test('stored in Settings, chosen for a task, changed in the drawer, deleted behind a confirmation', async () => {
    const repo = await makeRepoIn(scratch, 'payments');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/settings`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('secrets-empty').waitFor();
      // A refused name, in words, by keyboard.
      await page.getByTestId('secret-name').focus();
      await page.keyboard.type('path');
      await page.keyboard.press('Tab');
      await page.keyboard.type('abcdef');
      await page.keyboard.press('Enter');
      await page.getByTestId('secret-error').filter({ hasText: 'PATH is a variable Clawboo sets' }).waitFor();
      // The name field upper-cases what is typed; a good one is saved and listed.
      await page.getByTestId('secret-name').fill('');
      await page.getByTestId('secret-name').focus();
      await page.keyboard.type('stripe_test_key');
      await page.getByTestId('secret-value').fill(VALUE);
      await page.keyboard.press('Enter');
      await page.getByTestId('secret-note').filter({ hasText: 'Saved STRIPE_TEST_KEY' }).waitFor();
      await page.locator('[data-testid="secret-row"][data-name="STRIPE_TEST_KEY"]').waitFor();
      assert.equal(await page.getByTestId('secret-value').inputValue(), '', 'the value field is cleared');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'secret-name', 'focus is back on the name, for the next one');
      assert.ok(!(await page.content()).includes(VALUE), 'the page never shows the value');
      await api('PUT', '/api/secrets/DB_URL', { value: 'postgres://db' });

      // Chosen for a task in the New Task dialog.
      await page.goto(`${server.url}/#/board`);
      await page.getByTestId('new-task').click();
      await page.getByTestId('new-task-dialog').waitFor();
      await page.getByTestId('new-task-title').fill('Charge a test card');
      await page.getByTestId('new-task-repo').fill(repo);
      await page.locator('[data-testid="secret-choice"][data-name="STRIPE_TEST_KEY"] input').check();
      await page.getByTestId('new-task-submit').click();
      await page.getByTestId('new-task-dialog').waitFor({ state: 'hidden' });
      const card = page.locator('[data-testid="task-card"]', { hasText: 'Charge a test card' });
      await card.waitFor();
      const id = await card.getAttribute('data-task-id');
      assert.deepEqual((await api('GET', `/api/board/${id}`)).task.secrets, ['STRIPE_TEST_KEY'], 'the dialog sent the name');

      // Shown and changed in the drawer.
      await card.click();
      const facts = page.getByTestId('task-secrets');
      await page.locator('[data-testid="task-secrets"][data-names="STRIPE_TEST_KEY"]').waitFor();
      await page.getByTestId('task-secrets-edit').click();
      await facts.locator('[data-testid="secret-choice"][data-name="DB_URL"] input').check();
      await page.getByTestId('task-secrets-save').click();
      await page.locator('[data-testid="task-secrets"][data-names="DB_URL,STRIPE_TEST_KEY"]').waitFor();
      assert.deepEqual((await api('GET', `/api/board/${id}`)).task.secrets, ['DB_URL', 'STRIPE_TEST_KEY']);

      // Deleted behind a confirmation (Cancel keeps it); the drawer's picker then marks it missing.
      await page.goto(`${server.url}/#/settings`);
      const row = page.locator('[data-testid="secret-row"][data-name="STRIPE_TEST_KEY"]');
      await row.getByTestId('secret-delete').click();
      await page.getByTestId('secret-delete-dialog').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('secret-delete-dialog').waitFor({ state: 'hidden' });
      await row.waitFor();
      await row.getByTestId('secret-delete').click();
      await page.getByTestId('secret-delete-confirm').click();
      await row.waitFor({ state: 'detached' });
      assert.deepEqual((await api('GET', '/api/secrets')).secrets, [{ name: 'DB_URL' }]);
      await page.goto(`${server.url}/#/board/${id}`);
      await page.getByTestId('task-secrets-edit').click();
      await page
        .locator('[data-testid="task-secrets"] [data-testid="secret-choice"][data-name="STRIPE_TEST_KEY"]', { hasText: 'not in the vault' })
        .waitFor();
      // The refused name's 400 is the one failed request the browser logs.
      assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
    } finally {
      await context.close();
    }
  });
});
