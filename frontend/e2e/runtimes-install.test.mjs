// The Runtimes panel installing CLIs, in Chromium against a real `clawboo
// serve` whose PATH holds only fake installers (see world.mjs): the install
// log streams, failures carry their advice, and cards change state live as
// CLIs appear and logins land.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiRuntime, card, openRuntimes, waitState, waitText } from './cards.mjs';
import { launchBrowser, requireBin } from './harness.mjs';
import { makeWorld } from './world.mjs';

requireBin();

let browser;
const worlds = [];

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  for (const w of worlds) await w.close();
});

async function world(opts) {
  const w = await makeWorld(opts);
  worlds.push(w);
  return w;
}

describe('installing runtimes', { timeout: 60_000 }, () => {
  test('Claude Code: install with a visible log, paste a key, connect, then disconnect after a confirmation', async () => {
    const w = await world({ npm: 'ok' });
    const { page, context, problems, actions } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'claude-code');
      assert.equal(await c.getAttribute('data-state'), 'not-installed');
      assert.equal(await c.getByTestId('install-command').textContent(), 'npm install -g @anthropic-ai/claude-code@2');

      // Hold the fake npm so the running install can be seen.
      await w.flag('npm-slow', true);
      await c.getByTestId('install-button').click();
      await waitText(page, 'claude-code', 'install-log', /npm http fetch GET 200/);
      await waitText(page, 'claude-code', 'install-status', /Installing Claude Code/);
      assert.equal(await c.getByTestId('install-button').getAttribute('aria-disabled'), 'true', 'no second install while one runs');
      await w.flag('npm-slow', false);
      await waitState(page, 'claude-code', 'needs-auth');
      // The log stays at hand after the card moved on.
      const done = c.getByTestId('install-done');
      assert.match(await done.textContent(), /Claude Code was installed just now/);
      await done.locator('summary').click();
      assert.match(await done.getByTestId('install-log').innerText(), /added 3 packages/);

      // The key field is labelled with the variable it fills, hidden by default.
      const input = c.getByLabel('ANTHROPIC_API_KEY');
      assert.equal(await input.getAttribute('data-testid'), 'key-input');
      assert.equal(await input.getAttribute('type'), 'password');
      await input.fill('sk-ant-e2e-secret');
      const toggle = c.getByTestId('key-visibility-toggle');
      await toggle.click();
      assert.equal(await input.getAttribute('type'), 'text');
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      assert.equal(await input.inputValue(), 'sk-ant-e2e-secret');
      await toggle.click();
      assert.equal(await input.getAttribute('type'), 'password');

      await c.getByTestId('connect-button').click();
      await waitState(page, 'claude-code', 'ready');
      await waitText(page, 'claude-code', 'credential-source', /ANTHROPIC_API_KEY\s+from the vault/);
      await waitText(page, 'claude-code', 'card-health', /Health check: OK/);
      assert.ok(!(await page.content()).includes('sk-ant-e2e-secret'), 'the key is not on the page once connected');
      assert.deepEqual(actions, ['install claude-code', 'connect claude-code'], 'Claude Code keys are stored without a provider check');

      // Cancel keeps it connected.
      await c.getByTestId('disconnect-button').click();
      const dialog = page.getByRole('dialog', { name: 'Disconnect Claude Code?' });
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /You will need to paste the key again to reconnect\./);
      // Keys are stored per variable: the native runtime reads the same one, and the dialog says so.
      await waitState(page, 'clawboo-native', 'ready');
      assert.match(await dialog.textContent(), /Clawboo Native uses the same stored ANTHROPIC_API_KEY and will lose it too\./);
      await c.getByTestId('disconnect-cancel').click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal((await apiRuntime(w, 'claude-code')).connectionState, 'ready');
      assert.equal(await c.getAttribute('data-state'), 'ready');

      // Confirm disconnects.
      await c.getByTestId('disconnect-button').click();
      await c.getByTestId('disconnect-confirm').click();
      await waitState(page, 'claude-code', 'needs-auth');
      await waitState(page, 'clawboo-native', 'needs-auth');
      assert.equal(await c.getByTestId('key-input').inputValue(), '', 'the field starts empty again');
      assert.equal((await apiRuntime(w, 'claude-code')).hasCredential, false);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an install that hits EACCES shows the advice, and the card stays not installed', async () => {
    const w = await world({ npm: 'eacces' });
    const { page, context, problems } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'claude-code');
      await c.getByTestId('install-button').click();
      const eacces = c.locator('[data-testid="install-error"][data-code="EACCES"]');
      await eacces.waitFor({ timeout: 10_000 });
      const advice = await eacces.textContent();
      assert.match(advice, /npm may not write to the folder it installs into\./);
      assert.match(advice, /Permission denied while installing/);
      assert.match(advice, /sudo npm install -g @anthropic-ai\/claude-code@2/);
      assert.match(advice, /nvm or fnm/);
      await c.locator('[data-testid="install-error"][data-code="EXIT_243"]').waitFor();
      await waitText(page, 'claude-code', 'install-status', /did not finish/);
      assert.match(await c.getByTestId('install-log').textContent(), /npm error code EACCES/);
      // Still not installed, and ready for another try once the backend is done.
      await page.waitForFunction(
        () => document.querySelector('[data-runtime-id="claude-code"] [data-testid="install-button"]')?.getAttribute('aria-disabled') === null,
      );
      assert.equal(await c.getAttribute('data-state'), 'not-installed');
      assert.equal(await c.getByTestId('install-button').textContent(), 'Try again');
      assert.equal((await apiRuntime(w, 'claude-code')).installing, false);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an install can be stopped, another window sees it running, and a CLI that cannot be found is a warning', async () => {
    const w = await world({ npm: 'ok' });
    const first = await openRuntimes(browser, w);
    const second = await openRuntimes(browser, w);
    try {
      await w.flag('npm-slow', true);
      await card(first.page, 'claude-code').getByTestId('install-button').click();
      await waitText(first.page, 'claude-code', 'install-status', /Installing/);

      // The other window learns of it live and offers no second install.
      const other = card(second.page, 'claude-code');
      await other.getByText('An install of Claude Code is already running in another window.').waitFor();
      assert.equal(await other.getByTestId('install-button').getAttribute('aria-disabled'), 'true');

      await card(first.page, 'claude-code').getByTestId('install-stop').click();
      await waitText(first.page, 'claude-code', 'install-status', /Install stopped\./);
      await second.page.waitForFunction(
        () => document.querySelector('[data-runtime-id="claude-code"] [data-testid="install-button"]')?.getAttribute('aria-disabled') === null,
        null,
        { timeout: 10_000 },
      );
      assert.equal(await card(first.page, 'claude-code').getAttribute('data-state'), 'not-installed');
      assert.equal(existsSync(join(w.bin, 'claude')), false, 'stopping killed the installer before it wrote the CLI');
      await w.flag('npm-slow', false);

      // An install that "succeeds" without a findable CLI says so and stays not installed.
      await w.flag('npm-no-bin', true);
      await card(first.page, 'claude-code').getByTestId('install-button').click();
      const warning = await waitText(first.page, 'claude-code', 'install-warning', /not on PATH/);
      assert.match(warning, /restart Clawboo/);
      assert.equal(await card(first.page, 'claude-code').getAttribute('data-state'), 'not-installed');
      assert.deepEqual([...first.problems, ...second.problems], []);
    } finally {
      await first.context.close();
      await second.context.close();
    }
  });

  test('Codex: install, then the card notices `codex login` by itself', async () => {
    const w = await world({ npm: 'ok' });
    const { page, context, problems, actions } = await openRuntimes(browser, w, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    try {
      const c = card(page, 'codex');
      await c.getByTestId('install-button').click();
      await waitState(page, 'codex', 'needs-login');
      assert.equal(await c.getByTestId('login-command').textContent(), 'codex login');
      assert.match(await c.textContent(), /notices the sign-in by itself/);
      await c.getByTestId('copy-login').click();
      await waitText(page, 'codex', 'copy-login', /Copied/);
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'codex login');

      // What `codex login` leaves behind; no Re-check is clicked.
      await mkdir(join(w.home, '.codex'), { recursive: true });
      await writeFile(join(w.home, '.codex', 'auth.json'), JSON.stringify({ tokens: { access_token: 'x' } }));
      await waitState(page, 'codex', 'ready', 15_000);
      assert.deepEqual(actions, ['install codex'], 'the card changed without a re-check');

      // Its sign-in lives in CODEX_HOME: no Disconnect, and the card says why.
      assert.equal(await c.getByTestId('disconnect-button').count(), 0);
      assert.match(await c.getByTestId('no-disconnect-note').textContent(), /codex logout/);
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/runtimes/codex/recheck'));
      await c.getByTestId('recheck-button').click();
      assert.equal((await (await answered).json()).connectionState, 'ready');
      await page.waitForFunction(
        () => document.querySelector('[data-runtime-id="codex"] [data-testid="recheck-button"]')?.getAttribute('aria-disabled') === null,
      );
      assert.equal(await c.getAttribute('data-state'), 'ready', 'codex login status agrees');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('Hermes installs with pipx into ~/.local/bin, off PATH, and is found there', async () => {
    const w = await world({ npm: 'ok', pipx: true });
    const { page, context, problems, actions } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'hermes');
      assert.equal(await c.getByTestId('install-command').textContent(), "pipx install 'hermes-agent<1'");
      await c.getByTestId('install-button').click();
      await waitState(page, 'hermes', 'needs-auth');
      await waitText(page, 'hermes', 'install-log', /Installing via pipx…[\s\S]*installed package hermes-agent/);
      const where = join(w.home, '.local', 'bin', 'hermes');
      assert.equal((await apiRuntime(w, 'hermes')).binPath, where);
      await c.locator('summary', { hasText: 'Details' }).click();
      assert.equal(await c.getByTestId('bin-path').textContent(), where);

      // Hermes reads three providers' keys: the picker offers them, OpenRouter first.
      const options = await c.getByTestId('provider-select').locator('option').evaluateAll((els) => els.map((e) => e.value));
      assert.deepEqual(options, ['openrouter', 'anthropic', 'openai']);
      await c.getByLabel('OPENROUTER_API_KEY').fill('sk-or-hermes');
      await c.getByTestId('connect-button').click();
      await waitState(page, 'hermes', 'ready');
      await waitText(page, 'hermes', 'credential-source', /OPENROUTER_API_KEY\s+from the vault/);
      assert.deepEqual(actions, ['install hermes', 'connect hermes']);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
