// Browser tests of the paired phone (issue 30) against a real `clawboo
// serve`: the phones' listener bound to 127.0.0.2 (a loopback address apart
// from the API's 127.0.0.1), Chromium at a phone's size with touch. The
// person pairs from Settings → Devices through the QR code (decoded here
// from the picture the page shows, and the certificate's fingerprint
// checked against the one shown), answers a native agent's command (its run
// goes on), stops a run, writes to a room, and removes the phone, whose
// open page then says so. A scripted provider (fakechat.mjs) plays the
// model; everything else is real.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/phone.test.mjs)
//
// PHONE_SCREENSHOTS=<folder> saves the phone page (390×844) and Settings →
// Devices (1280×800, 800×600).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { axeProblems, until } from './checks.mjs';
import { apiOk } from './api.mjs';
import { text, tools } from './fakechat.mjs';
import { launchBrowser, openPage, requireBin } from './harness.mjs';
import { GOOD_KEY, makeWorld } from './world.mjs';

requireBin();
const require = createRequire(import.meta.url);
const jsQR = require('jsqr');
const SHOTS = process.env.PHONE_SCREENSHOTS || '';

/** A phone: its size, touch, and no trust in the listener's own certificate but the fingerprint check below. */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, ignoreHTTPSErrors: true, deviceScaleFactor: 2 };
const AGENT_PROMPT = 'PHONE-BUILDER: you build things';

let world;
let browser;
let phone; // { context, page, problems } once paired
let desktop; // { context, page, problems }
let link = '';
/** The bodies the phones' listener served the phone. */
const served = [];
let teamId = '';
const api = (method, path, body) => apiOk(world.server, method, path, body);


/** The certificate the listener at host:port presents: its SHA-256 fingerprint, colon hex. */
function presentedFingerprint(host, port) {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port, rejectUnauthorized: false, servername: undefined }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.end();
      resolve(fp);
    });
    s.once('error', reject);
  });
}

/** Reads the QR code the page shows: its picture drawn on a canvas in the page, the pixels decoded here by jsQR. */
async function decodeQR(page) {
  const size = 440;
  const pixels = await page.evaluate(async (n) => {
    const img = document.querySelector('[data-testid="devices-qr"]');
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = n;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0, n, n);
    return Array.from(g.getImageData(0, 0, n, n).data);
  }, size);
  return jsQR(Uint8ClampedArray.from(pixels), size, size)?.data ?? null;
}

const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|403|409)/.test(p));

before(async () => {
  world = await makeWorld({ tools: ['git'] });
  browser = await launchBrowser();
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
  await api('POST', '/api/runtimes/clawboo-native/connect', { provider: 'openai', apiKey: GOOD_KEY });
  const { team } = await api('POST', '/api/teams', { name: 'Core' });
  teamId = team.id;
  const { agent } = await api('POST', '/api/agents', { name: 'Lead', runtime: 'clawboo-mock' });
  await api('POST', `/api/teams/${teamId}/agents`, { agentId: agent.id });
  await api('PATCH', `/api/teams/${teamId}`, { leaderAgentId: agent.id });
});

after(async () => {
  await phone?.context.close();
  await desktop?.context.close();
  await browser?.close();
  await world?.close();
});

describe('the paired phone', { timeout: 120_000 }, () => {
  test('pairs through the QR code Settings shows, once, after checking the certificate', async () => {
    desktop = await openPage(browser, `${world.url}/#/settings`, { viewport: { width: 1280, height: 800 } });
    const d = desktop.page;
    await d.getByTestId('devices-empty').waitFor();
    await d.getByText('Listen on another address').click();
    await d.getByTestId('devices-address').fill('127.0.0.2');
    await d.getByTestId('devices-pair').click();
    await d.getByTestId('devices-qr').waitFor();
    link = (await d.getByTestId('devices-link').textContent()).trim();
    assert.match(link, /^https:\/\/127\.0\.0\.2:\d+\/pair#[A-Za-z0-9_-]{22}$/);
    assert.equal(await decodeQR(d), link, 'the QR code carries the link shown beside it');
    const shown = (await d.getByTestId('devices-fingerprint').textContent()).trim();
    const url = new URL(link);
    assert.equal(await presentedFingerprint(url.hostname, Number(url.port)), shown, 'the listener presents the certificate whose fingerprint is shown');
    if (SHOTS) {
      await d.getByTestId('settings-devices').scrollIntoViewIfNeeded();
      await d.screenshot({ path: join(SHOTS, 'settings-devices-1280x800.png') });
    }

    const context = await browser.newContextWithoutLogin(PHONE);
    const page = await context.newPage();
    const problems = [];
    // Everything the listener answers the phone (but the stream, read by the Go test) is kept for the sentinel scan.
    page.on('response', (res) => {
      if (!res.url().includes('/m/api/events')) served.push(res.text().catch(() => ''));
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => msg.type() === 'error' && problems.push(`console error: ${msg.text()}`));
    await page.goto(link);
    await page.getByTestId('pair-name').waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the one-time code leaves the address bar at once');
    await page.getByTestId('pair-name').fill('Pixel 8');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'phone-pair.png') });
    await page.getByTestId('pair-submit').tap();
    await page.getByTestId('phone-page').waitFor();
    await page.waitForSelector('[data-testid="phone-connection"]:has-text("Live")');
    assert.equal(new URL(page.url()).pathname, '/m');
    phone = { context, page, problems };
    // Installable as a home-screen app: the page names its manifest, which opens the phone page.
    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = await context.request.get(new URL(manifestHref, link).href);
    assert.equal(manifest.headers()['content-type'], 'application/manifest+json');
    assert.equal((await manifest.json()).start_url, '/m');

    // The desktop lists it by name at once, and the spent link gives way.
    await d.locator('[data-testid="device-name"]', { hasText: 'Pixel 8' }).waitFor();
    assert.equal((await d.getByTestId('devices-paired').textContent()).trim(), 'Pixel 8 is paired.');
    assert.equal(await d.getByTestId('devices-pairing').count(), 0);

    // The code is burnt: the same link pairs nothing more.
    const other = await browser.newContextWithoutLogin(PHONE);
    try {
      const p2 = await other.newPage();
      await p2.goto(link);
      await p2.getByTestId('pair-submit').tap();
      await p2.getByTestId('pair-error').waitFor();
      assert.match(await p2.getByTestId('pair-error').textContent(), /not valid \(used, expired or mistyped\)/);
      await p2.goto(`${url.origin}/m`);
      await p2.getByTestId('phone-unpaired').waitFor();
    } finally {
      await other.close();
    }
    assert.equal((await api('GET', '/api/devices')).devices.length, 1);
  });

  test("answers a native agent's command from the phone, and the run goes on", async () => {
    assert.ok(phone, 'paired by the test before');
    const repo = join(world.home, 'project');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'README.md'), 'phone-approved-read\n');
    const git = (...args) => execFileSync('git', ['-c', 'commit.gpgsign=false', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], { cwd: repo });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    const { agent } = await api('POST', '/api/agents', {
      name: 'Builder',
      runtime: 'clawboo-native',
      provider: 'openai',
      model: 'gpt-4o-mini',
      config: { systemPrompt: AGENT_PROMPT, tools: { shell: true } },
    });
    const chat = world.providers.chat;
    chat.pushWhen(AGENT_PROMPT, tools({ id: 'call_cat', name: 'run_command', args: { argv: ['cat', 'README.md'], why: 'to read what the project says' } }), text('Read it.'));
    const { task } = await api('POST', '/api/board', { title: 'Read the readme', repoPath: repo, kind: 'code', teamId });
    const { runId } = await api('POST', '/api/runtimes/clawboo-native/run', { taskId: task.id, assigneeAgentId: agent.id, wait: false });

    const card = phone.page.getByTestId('phone-approval');
    await card.waitFor({ timeout: 15_000 }).catch(async (err) => {
      assert.fail(`${err.message}\nthe run: ${JSON.stringify(await api('GET', `/api/runs/${runId}`))}\nthe page: ${await phone.page.textContent('main')}`);
    });
    assert.equal(await card.getByTestId('phone-approval-program').textContent(), 'cat README.md');
    assert.match(await card.getByTestId('phone-approval-who').textContent(), /Builder · team Core/);
    assert.match(await card.textContent(), /to read what the project says/);
    if (SHOTS) await phone.page.screenshot({ path: join(SHOTS, 'phone-approval.png'), fullPage: true });
    await card.getByTestId('phone-allow').tap();
    await card.waitFor({ state: 'detached' });

    const run = await until('the run to finish', async () => {
      const r = await api('GET', `/api/runs/${runId}`);
      return ['succeeded', 'failed', 'aborted'].includes(r.status) && r;
    });
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.ok(chat.requestsWith('phone-approved-read').length > 0, 'the command ran and its output went back to the model');
    const { approvals } = await api('GET', '/api/approvals?status=answered');
    const answered = approvals.find((a) => a.runId === runId);
    assert.equal(answered.status, 'approved');
    assert.equal(answered.resolvedBy, 'phone: Pixel 8');
  });

  test('stops a run from the phone: final', async () => {
    const { runId } = await api('POST', '/api/runtimes/clawboo-mock/run', { message: '!ok working\n!silent 600000', wait: false });
    const row = phone.page.locator(`[data-testid="phone-run"][data-run-id="${runId}"]`);
    await row.waitFor();
    if (SHOTS) await phone.page.screenshot({ path: join(SHOTS, 'phone-running.png'), fullPage: true });
    await row.getByTestId('phone-stop').tap();
    await row.getByTestId('phone-stop-confirm').tap();
    await row.waitFor({ state: 'detached' });
    const run = await api('GET', `/api/runs/${runId}`);
    assert.equal(run.status, 'aborted');
    assert.equal(run.error, 'Stopped by you.');
  });

  test('writes to a team room from the phone and sees the answer live', async () => {
    const room = phone.page.locator(`[data-testid="phone-room"][data-team-id="${teamId}"]`);
    await room.getByTestId('phone-room-input').fill('!ok on it from the phone');
    await room.getByTestId('phone-room-send').tap();
    await room.locator('[data-testid="phone-post"]', { hasText: 'on it from the phone' }).first().waitFor();
    await until('the leader to answer in the room', async () => (await room.locator('[data-testid="phone-post"]', { hasText: /^Lead/ }).count()) > 0);
    const { posts } = await api('GET', `/api/teams/${teamId}/chat`);
    assert.ok(posts.some((p) => p.authorName === 'You' && p.body === '!ok on it from the phone'), JSON.stringify(posts));
    assert.equal(await room.getByTestId('phone-room-input').inputValue(), '');
  });

  test('the phone page reads well: no serious accessibility finding, everything reachable by keyboard', async () => {
    // axe is an inline script, which the page's CSP refuses: it runs in a second view of the same phone with CSP bypassed.
    const audit = await browser.newContextWithoutLogin({ ...PHONE, bypassCSP: true });
    let found;
    try {
      await audit.addCookies(await phone.context.cookies());
      const page = await audit.newPage();
      await page.goto(new URL('/m', link).href);
      await page.waitForSelector('[data-testid="phone-connection"]:has-text("Live")');
      await page.getByTestId('phone-room').first().waitFor();
      found = await axeProblems(page);
    } finally {
      await audit.close();
    }
    assert.deepEqual(found, []);
    // Tab reaches the room's box and Send.
    const reached = new Set();
    for (let i = 0; i < 30; i++) {
      await phone.page.keyboard.press('Tab');
      reached.add(await phone.page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? ''));
    }
    assert.ok(reached.has('phone-room-input') && reached.has('phone-room-send'), [...reached].join(' '));
    if (SHOTS) await phone.page.screenshot({ path: join(SHOTS, 'phone-page.png'), fullPage: true });
  });

  test('removing the phone on the computer ends its open page at once', async () => {
    const d = desktop.page;
    await d.getByTestId('device-remove').click();
    await d.getByTestId('device-remove-confirm').click();
    await d.getByTestId('devices-empty').waitFor();
    assert.equal(await d.getByTestId('devices-paired').count(), 0, 'the news of its pairing leaves with it');
    await phone.page.getByTestId('phone-unpaired').waitFor();
    assert.deepEqual(unexpected(phone.problems), []);
    assert.deepEqual(unexpected(desktop.problems), []);
    // The provider key the native agent ran with is in nothing the listener served the phone.
    const bodies = await Promise.all(served);
    assert.ok(bodies.some((b) => b.includes('cat README.md')), 'the scan saw the answers');
    assert.ok(!bodies.some((b) => b.includes(GOOD_KEY)), 'the provider key reached the phone');
    const history = (await api('GET', '/api/approvals?status=answered')).approvals.map((a) => a.title);
    assert.ok(history.includes('Paired a phone: Pixel 8') && history.includes('Removed a phone: Pixel 8'), JSON.stringify(history));
    if (SHOTS) {
      await d.setViewportSize({ width: 800, height: 600 });
      await d.getByTestId('settings-devices').scrollIntoViewIfNeeded();
      await d.screenshot({ path: join(SHOTS, 'settings-devices-800x600.png') });
    }
  });
});
