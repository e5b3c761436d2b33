// Browser-test plumbing: a real `clawboo serve` (with the mock runtime) and
// Debian's Chromium driven by playwright-core. Both are always torn down,
// even when a test fails or the runner is interrupted.

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Children to kill if the runner exits without reaching the after() hooks. */
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** The clawboo binary under test, from CLAWBOO_BIN; throws a how-to when unset. */
export function requireBin() {
  const bin = process.env.CLAWBOO_BIN;
  if (!bin) {
    throw new Error(
      'CLAWBOO_BIN is not set. Build the UI and the backend, then point CLAWBOO_BIN at the binary:\n' +
        '  (cd frontend && npm run build) && go build -o /tmp/clawboo . && (cd frontend && CLAWBOO_BIN=/tmp/clawboo npm run test:e2e)',
    );
  }
  return bin;
}

/**
 * Starts `$CLAWBOO_BIN serve` with the mock runtime and resolves once it
 * prints its URL. By default it gets a fresh home and a free loopback port;
 * pass both of a previous server's to restart "the same" backend. `env`,
 * when given, is the server's whole environment (tests that control what
 * programs and keys the server can see must not inherit the runner's: `npm
 * run` alone exports npm_config_prefix, which would put the real npm's bin
 * folder in reach). `mockWorktrees` turns on CLAWBOO_MOCK_WORKTREES, the
 * mock that works in a task's worktree (`!write` leaves a diff); the seed's
 * mock, the default, has no worktrees. The first-run welcome is skipped
 * (POST /api/onboarding/skip) unless `welcome` is true: the suites open the
 * bare URL and expect the page it opens on, which a fresh home would
 * replace with the welcome until a team exists.
 */
export async function startServer({ home: givenHome, addr = '127.0.0.1:0', env, mockWorktrees = false, welcome = false } = {}) {
  const bin = requireBin();
  const home = givenHome ?? (await mkdtemp(join(tmpdir(), 'clawboo-e2e-')));
  const mock = { CLAWBOO_ENABLE_MOCK_RUNTIME: '1', ...(mockWorktrees ? { CLAWBOO_MOCK_WORKTREES: '1' } : {}) };
  const child = spawn(bin, ['serve', '--home', home, '--addr', addr], {
    env: { ...(env ?? process.env), ...mock },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr = (stderr + b.toString()).slice(-8000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  exited.then(() => children.delete(child));

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`clawboo serve printed no URL in 15 s\n${stderr}`)), 15_000);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const m = /Clawboo is serving (http:\/\/\S+?)\/? \(home/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('error', (err) => reject(new Error(`cannot start ${bin}: ${err.message}`)));
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`clawboo serve exited early (code ${code}, signal ${signal})\n${stderr}`));
    });
  });

  if (!welcome) {
    // An older backend without the route answers 404: it has no welcome to skip.
    await fetch(`${url}/api/onboarding/skip`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).catch(() => {});
  }

  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    home,
    addr: new URL(url).host,
    stderr: () => stderr,
    /** Kills the process at once, as a crash would: no graceful shutdown. */
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    /** Stops it gracefully (SIGTERM), and removes the home it created. */
    async stop() {
      if (running()) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(t);
      }
      if (!givenHome) await rm(home, { recursive: true, force: true });
    },
  };
}

/** Launches headless Chromium. Playwright gives each launch a fresh temporary profile (user data dir). */
export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Opens a page in its own context and records uncaught errors and console
 * errors (a CSP violation shows up there), for tests to assert none.
 */
export async function openPage(browser, url, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  await page.goto(url);
  try {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
  } catch (err) {
    // Say what the page shows instead: often "the UI was not built into this binary".
    const text = (await page.textContent('body').catch(() => '')) ?? '';
    throw new Error(`the page never became ready: ${err.message}\npage text: ${text.slice(0, 300)}\n${problems.join('\n')}`);
  }
  return { page, context, problems };
}
