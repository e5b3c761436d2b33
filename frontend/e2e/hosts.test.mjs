// Settings → Hosts in Chromium against a real `clawboo serve` and a real
// sshd whose only login is a second Unix user (internal/testkit/sshdserve,
// which needs root): a destination with shell syntax is refused in words;
// the host added by its ssh alias shows its key's fingerprint (the very
// one sshd serves) and connects only once it is accepted, gets this
// Clawboo's build (CLAWBOO_HOST_BUILDS), then says what it is; Remove asks
// first. All by keyboard.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/hosts.test.mjs)
//
// Without root the suite is skipped (make test runs it as root, with
// CLAWBOO_TEST_SSHD set, and then its absence fails it). With
// HOSTS_SCREENSHOTS=<folder> it saves the section at 1280×800 and 800×600.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { apiOk } from './api.mjs';
import { axeProblems, shootSizes, waitTestId, waitText } from './checks.mjs';
import { launchBrowser, openPage, requireBin } from './harness.mjs';
import { makeWorld } from './world.mjs';

requireBin();

const SHOTS = process.env.HOSTS_SCREENSHOTS || '';
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const root = process.getuid?.() === 0;
const required = process.env.CLAWBOO_TEST_SSHD !== undefined;
if (!root && required) throw new Error('CLAWBOO_TEST_SSHD is set but the browser suite is not running as root');

let browser;
let world;
let sshd; // the sshdserve child
let host; // what it printed
let bin;

before(async () => {
  if (!root) return;
  bin = await mkdtemp(join(tmpdir(), 'clawboo-sshdserve-'));
  await promisify(execFile)('go', ['build', '-o', join(bin, 'sshdserve'), './internal/testkit/sshdserve'], { cwd: REPO });
  sshd = spawn(join(bin, 'sshdserve'), { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise((resolve, reject) => {
    createInterface({ input: sshd.stdout }).once('line', resolve);
    sshd.once('exit', (code) => reject(new Error(`sshdserve exited ${code}`)));
  });
  host = JSON.parse(first);
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
  // The builds a host gets, laid out as `make package` will ship them: this very headless binary.
  const builds = join(bin, 'builds');
  await mkdir(builds);
  const name = `clawboo-linux-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  await copyFile(process.env.CLAWBOO_BIN, join(builds, name));
  const sum = createHash('sha256').update(await readFile(join(builds, name))).digest('hex');
  await writeFile(join(builds, `${name}.sha256`), `${sum}  ${name}\n`);
  world = await makeWorld({
    env: { CLAWBOO_SSH_CONFIG: host.config, CLAWBOO_HOST_BUILDS: builds },
    tools: ['ssh', 'ssh-keyscan', 'ssh-keygen'],
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await world?.close();
  if (sshd) {
    const gone = new Promise((resolve) => sshd.once('exit', resolve));
    sshd.stdin.end(); // sshdserve removes its user and stops sshd
    await gone;
  }
  if (bin) await rm(bin, { recursive: true, force: true });
});

describe('hosts', { timeout: 120_000, skip: root ? false : 'needs root (a second Unix user and sshd)' }, () => {
  test('a host is refused in words, added by keyboard, its key checked and accepted, then ready; removed after a question', async () => {
    const { page, context, problems } = await openPage(browser, `${world.url}/#/settings`, { bypassCSP: true });
    try {
      const section = page.getByTestId('settings-hosts');
      await section.getByTestId('hosts-empty').waitFor();
      const dest = section.getByTestId('host-destination');
      await dest.focus();
      await page.keyboard.type('me@box; rm -rf ~');
      await page.keyboard.press('Enter');
      await waitTestId(page, 'host-error', /^a host is `user@host`, `host:port`/, 10_000, section);
      assert.equal(await section.getByTestId('host-row').count(), 0, 'nothing was added');

      await dest.fill('');
      await dest.focus();
      await page.keyboard.type(host.alias);
      await page.keyboard.press('Tab');
      await page.keyboard.type('Build box');
      await page.keyboard.press('Enter');
      const row = section.locator('[data-testid="host-row"]').filter({ hasText: 'Build box' });
      await row.and(page.locator('[data-state="unknown-host-key"]')).waitFor({ timeout: 30_000 });
      assert.equal(await row.getByTestId('host-fingerprint').textContent(), host.fingerprint, 'the key sshd serves');
      assert.equal(await row.getByTestId('host-state').textContent(), 'Its key needs your check');
      assert.deepEqual(await axeProblems(page), [], 'the section asking about a key');
      await shootSizes(page, SHOTS, 'settings-hosts-key', (p) => p.getByTestId('settings-hosts').scrollIntoViewIfNeeded());

      await row.getByTestId('host-trust').focus();
      await page.keyboard.press('Enter');
      await row.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
      await waitText(page, row.getByTestId('host-info'), /^Linux · (amd64|arm64) · \d+ cores? · \d+\.\d GiB$/);
      assert.equal(await row.getByTestId('host-key').count(), 0, 'no key question once accepted');
      // The host user has none of the agent programs on its PATH (names, not ids, when it does).
      assert.equal(await row.getByTestId('host-runtimes').textContent(), 'No agent runtime found there yet.');
      // Its concurrency: automatic until set, by keyboard.
      assert.match(await row.getByTestId('host-concurrency-note').textContent(), /^0: from its memory and cores \(now \d+\)$/);
      await row.getByTestId('host-concurrency').fill('3');
      await row.getByTestId('host-concurrency').press('Enter');
      await waitText(page, row.getByTestId('host-concurrency-note'), /^set by you; 0 sets it from its memory and cores$/);
      const saved = (await apiOk(world.server, 'GET', '/api/hosts')).hosts.find((x) => x.name === 'Build box');
      assert.deepEqual([saved.concurrency, saved.concurrencyAuto], [3, false]);
      await shootSizes(page, SHOTS, 'settings-hosts-ready', (p) => p.getByTestId('settings-hosts').scrollIntoViewIfNeeded());

      await row.getByTestId('host-remove').focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByTestId('host-remove-dialog');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /Remove the host Build box\?/);
      await page.getByTestId('host-remove-confirm').click();
      await section.getByTestId('hosts-empty').waitFor();
      assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
    } finally {
      await context.close();
    }
  });
});
