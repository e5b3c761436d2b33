// Browser test of "start at login" on the Settings page against a real
// `clawboo serve` whose HOME and XDG_CONFIG_HOME are a temp folder: off by
// default, switched on with the keyboard (the XDG autostart entry appears,
// running this binary), still on after a reload, switched off (the entry is
// gone). Screenshots at 1280×800 and 800×600 go to e2e/artifacts.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/autostart.test.mjs)

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';

const bin = requireBin();
const ARTIFACTS = process.env.CLAWBOO_ARTIFACTS || join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

let server;
let browser;
let scratch;
let entry;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'clawboo-autostart-e2e-'));
  const xdg = join(scratch, 'config');
  entry = join(xdg, 'autostart', 'clawboo.desktop');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(scratch, 'home'), XDG_CONFIG_HOME: xdg };
  await mkdir(env.HOME, { recursive: true });
  server = await startServer({ env });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test('start at login: off by default, switched on and off from the Settings page', async () => {
  const { page, context, problems } = await openPage(browser, `${server.url}/#/settings`, { viewport: { width: 1280, height: 800 } });
  try {
    const box = page.getByLabel('Start Clawboo when I log in');
    await page.locator('[data-testid="autostart-toggle"]:not([disabled])').waitFor();
    assert.equal(await box.isChecked(), false);
    assert.match(await page.getByTestId('autostart-hint').textContent(), /Off\. On adds an autostart entry/);
    assert.equal(existsSync(entry), false);

    // On, with the keyboard alone.
    await box.focus();
    await page.keyboard.press('Space');
    assert.equal(await page.getByTestId('autostart-saved').textContent(), 'Clawboo will start when you log in.');
    assert.equal(await box.isChecked(), true);
    assert.ok((await page.getByTestId('autostart-hint').textContent()).includes(entry), 'the hint names the entry');
    const text = await readFile(entry, 'utf8');
    assert.match(text, /^\[Desktop Entry\]\n/);
    assert.ok(text.includes(`\nExec=${resolve(bin)}\n`), `the entry runs this binary:\n${text}`);
    await page.getByTestId('settings-startup').scrollIntoViewIfNeeded();
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'settings-autostart-1280x800.png') });

    // Still on after a reload; then off, and the entry is gone.
    await page.reload();
    await page.locator('[data-testid="autostart-toggle"]:not([disabled])').waitFor();
    assert.equal(await box.isChecked(), true);
    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByTestId('settings-startup').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'settings-autostart-800x600.png') });
    await box.click();
    assert.equal(await page.getByTestId('autostart-saved').textContent(), 'Clawboo will not start at login.');
    assert.equal(await box.isChecked(), false);
    assert.equal(existsSync(entry), false);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
