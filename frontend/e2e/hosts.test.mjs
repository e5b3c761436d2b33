// Settings → Hosts in Chromium against a real `clawboo serve` and a real
// sshd whose only login is a second Unix user (internal/testkit/sshdserve,
// which needs root): a destination with shell syntax is refused in words;
// the host added by its ssh alias shows its key's fingerprint (the very
// one sshd serves) and connects only once it is accepted, gets this
// Clawboo's build (CLAWBOO_HOST_BUILDS), then says what it is; an agent is
// placed on it from the agent's "Runs on" (by name), its task runs there and
// the task's card and drawer say "on Build box" (then "on a removed host"
// once Remove, which asks first, took the host). All by keyboard.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/hosts.test.mjs)
//
// Without root the suite is skipped (make test runs it as root, with
// CLAWBOO_TEST_SSHD set, and then its absence fails it). With
// HOSTS_SCREENSHOTS=<folder> it saves the section, the agent dialog with its
// "Runs on", the agent placed, and the task's card and drawer, at 1280×800
// and 800×600.

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

/** A stand-in pipx for the host's user: "installs" a hermes that answers its version. */
const FAKE_PIPX = `set -e; mkdir -p ~/.local/bin; cat > ~/.local/bin/pipx <<'END'
#!/bin/sh
echo "pipx $*"
printf '#!/bin/sh\\necho hermes 0.9\\n' > "$HOME/.local/bin/hermes"; chmod +x "$HOME/.local/bin/hermes"
END
chmod +x ~/.local/bin/pipx`;

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

const focusedTestid = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');

/** Presses `key` (Tab, Shift+Tab) until the element with that test id has focus (at most `max` presses); fails otherwise. */
async function tabTo(page, testid, key = 'Tab', max = 120) {
  for (let i = 0; i < max; i++) {
    if ((await focusedTestid(page)) === testid) return;
    await page.keyboard.press(key);
  }
  assert.fail(`${key} never reached ${testid} (focus on ${await focusedTestid(page)})`);
}

/** Presses `key` (ArrowDown, ArrowUp) on the focused select until the option it shows reads `label`. */
async function arrowTo(page, select, label, key = 'ArrowDown', max = 10) {
  const shown = () => select.evaluate((el) => el.selectedOptions[0]?.textContent ?? '');
  for (let i = 0; i < max; i++) {
    if ((await shown()) === label) return;
    await page.keyboard.press(key);
  }
  assert.fail(`${key} never chose ${JSON.stringify(label)} (shows ${JSON.stringify(await shown())})`);
}

/**
 * By keyboard only, from wherever focus is on the settings page: Agents in
 * the sidebar, the agent, Edit, "Runs on" set to the host by its name, Save;
 * the API and the page then say it runs there.
 */
async function placeAgent(page, agent, hostName, hostId) {
  await tabTo(page, 'nav-agents', 'Shift+Tab');
  await page.keyboard.press('Enter');
  await page.getByTestId('agent-open').waitFor();
  await tabTo(page, 'agent-open');
  await page.keyboard.press('Enter');
  await waitTestId(page, 'agent-title', new RegExp(`^${agent.name}$`));
  assert.equal(await page.getByTestId('agent-detail-place').count(), 0, 'nothing said for this computer');
  await tabTo(page, 'agent-edit');
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('agent-dialog');
  await dialog.waitFor();
  const runsOn = dialog.getByTestId('agent-host');
  assert.equal(await dialog.getByText('Runs on', { exact: true }).count(), 1, 'a visible label');
  await waitText(page, runsOn.locator('option').nth(1), new RegExp(`^${hostName}$`), 10_000, 'the host offered by name');
  assert.deepEqual(await runsOn.locator('option').allTextContents(), ['This computer', hostName]);
  await tabTo(page, 'agent-host');
  await arrowTo(page, runsOn, hostName);
  assert.equal(await runsOn.inputValue(), hostId);
  assert.deepEqual(await axeProblems(page), [], 'the agent dialog with Runs on');
  await shootSizes(page, SHOTS, 'agent-runs-on', () => runsOn.scrollIntoViewIfNeeded());
  await tabTo(page, 'agent-save');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  await waitTestId(page, 'agent-detail-place', new RegExp(`^on ${hostName}$`));
  await waitTestId(page, 'agent-place', new RegExp(`^on ${hostName}$`));
  assert.equal((await apiOk(world.server, 'GET', `/api/agents/${agent.id}`)).agent.hostId, hostId);
  await shootSizes(page, SHOTS, 'agent-on-host');
}

/** By keyboard only, on the agent's page: Edit, "Runs on" back to this computer, Save; nothing is said of a place then. */
async function bringBack(page, agent) {
  await tabTo(page, 'agent-edit');
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('agent-dialog');
  await dialog.waitFor();
  const runsOn = dialog.getByTestId('agent-host');
  await tabTo(page, 'agent-host');
  await arrowTo(page, runsOn, 'This computer', 'ArrowUp');
  await tabTo(page, 'agent-save');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  await page.getByTestId('agent-detail-place').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('agent-place').count(), 0);
  assert.equal((await apiOk(world.server, 'GET', `/api/agents/${agent.id}`)).agent.hostId, null);
}

/** By keyboard only, from the sidebar: the board, where the task's card says `words` ("on Build box"), and so does its drawer. */
async function boardSays(page, task, words, shots = '') {
  await tabTo(page, 'nav-board', 'Shift+Tab');
  await page.keyboard.press('Enter');
  const card = page.locator(`[data-testid="task-card"][data-task-id="${task.id}"]`);
  await waitText(page, card.getByTestId('task-host'), new RegExp(`^${words}$`), 10_000, 'the card');
  if (shots) await shootSizes(page, SHOTS, shots, () => card.scrollIntoViewIfNeeded());
  await tabTo(page, 'task-card');
  await page.keyboard.press('Enter');
  await waitTestId(page, 'task-facts-host', new RegExp(`^${words}$`));
  if (shots) await shootSizes(page, SHOTS, `${shots}-drawer`, (p) => p.getByTestId('task-facts-host').scrollIntoViewIfNeeded());
  await page.keyboard.press('Escape');
  await page.getByTestId('task-drawer').waitFor({ state: 'detached' });
}

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

      // A runtime installed there by keyboard, through the host's own installer: a stand-in pipx in the host
      // user's ~/.local/bin (not on ssh's PATH; the host's Clawboo looks there as its runs do).
      await promisify(execFile)('su', ['-s', '/bin/sh', '-c', FAKE_PIPX, host.user]);
      const pick = row.getByTestId('host-install-runtime');
      assert.equal(await row.getByText('Install on Build box', { exact: true }).count(), 1, 'a visible label');
      await pick.focus();
      await arrowTo(page, pick, 'Hermes');
      await page.keyboard.press('Tab');
      assert.equal(await focusedTestid(page), 'host-install');
      await page.keyboard.press('Enter');
      await waitText(page, row.getByTestId('host-install-status'), /^Hermes is installed on Build box\.$/, 30_000);
      await waitText(page, row.getByTestId('host-runtimes'), /^Runtimes there: Hermes$/, 30_000);
      assert.deepEqual(await axeProblems(page), [], 'the section after an install there');
      await shootSizes(page, SHOTS, 'settings-hosts-installed', (p) => p.getByTestId('settings-hosts').scrollIntoViewIfNeeded());

      // An agent placed on the host from its "Runs on", by the host's name, and brought back.
      const { agent } = await apiOk(world.server, 'POST', '/api/agents', { name: 'Mock on the box', runtime: 'clawboo-mock' });
      assert.equal(agent.hostId, null, 'a new agent runs on this computer');
      await placeAgent(page, agent, 'Build box', saved.id);
      // Mission control says where a member runs.
      const { team } = await apiOk(world.server, 'POST', '/api/teams', { name: 'Remote crew', leaderAgentId: agent.id });
      assert.equal(team.members[0].hostId, saved.id);
      await page.goto(`${world.server.url}/#/teams/${encodeURIComponent(team.id)}`);
      const member = page.locator(`[data-testid="mission-member"][data-agent-id="${agent.id}"]`);
      await waitText(page, member.getByTestId('mission-member-host'), /^on Build box$/, 10_000, 'mission control');
      // The team's own "Runs on", by keyboard: saved as chosen, said in words, and back to this computer.
      await page.goto(`${world.server.url}/#/teams`);
      const card = page.locator(`[data-testid="team-card"][data-team-id="${team.id}"]`);
      const teamHost = card.getByTestId('team-host');
      await waitText(page, teamHost.locator('option').nth(1), /^Build box$/, 10_000, 'the host offered by name');
      await teamHost.focus();
      await arrowTo(page, teamHost, 'Build box');
      await waitText(page, card.getByTestId('team-host-hint'), /^Members without a place of their own run the team’s work there\.$/);
      assert.equal((await apiOk(world.server, 'GET', `/api/teams/${team.id}`)).team.hostId, saved.id);
      assert.deepEqual(await axeProblems(page), [], 'the team card with Runs on');
      await shootSizes(page, SHOTS, 'team-runs-on', () => teamHost.scrollIntoViewIfNeeded());
      await arrowTo(page, teamHost, 'This computer', 'ArrowUp');
      await waitText(page, card.getByTestId('team-host-hint'), /^This computer, except members placed on a host of their own\.$/);
      assert.equal((await apiOk(world.server, 'GET', `/api/teams/${team.id}`)).team.hostId, null);
      // Back to the agent's page, where the walk goes on by keyboard.
      await page.goto(`${world.server.url}/#/agents/${encodeURIComponent(agent.id)}`);
      await waitTestId(page, 'agent-title', new RegExp(`^${agent.name}$`));
      await page.getByTestId('agent-title').focus();
      // Its task runs there; the task keeps the host its last run went to after the agent comes back here.
      const { task } = await apiOk(world.server, 'POST', '/api/board', { title: 'Look around', description: '!ok looked', kind: 'research', assigneeAgentId: agent.id });
      const ran = await apiOk(world.server, 'POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id, wait: true });
      assert.deepEqual([ran.status, ran.task.hostId], ['succeeded', saved.id]);
      await bringBack(page, agent);
      await boardSays(page, task, 'on Build box', 'board-task-host');
      // The Runs page says where the run went, in the list and on the run.
      await tabTo(page, 'nav-runs', 'Shift+Tab');
      await page.keyboard.press('Enter');
      const runRow = page.locator(`[data-testid="run-row"][data-run-id="${ran.runId}"]`);
      await waitText(page, runRow.getByTestId('run-row-host'), /^on Build box$/, 10_000, 'the run row');
      await runRow.focus();
      await page.keyboard.press('Enter');
      await waitTestId(page, 'run-host', /^on Build box$/);
      await shootSizes(page, SHOTS, 'run-host');

      await tabTo(page, 'nav-settings', 'Shift+Tab');
      await page.keyboard.press('Enter');
      await row.getByTestId('host-remove').focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByTestId('host-remove-dialog');
      await dialog.waitFor();
      assert.match(await dialog.textContent(), /Remove the host Build box\?/);
      await page.getByTestId('host-remove-confirm').click();
      await section.getByTestId('hosts-empty').waitFor();
      await boardSays(page, task, 'on a removed host');
      assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
    } finally {
      await context.close();
    }
  });
});
