// Browser-test plumbing: a real `clawboo serve` (with the mock runtime) and
// Debian's Chromium driven by playwright-core. Both are always torn down,
// even when a test fails or the runner is interrupted.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/**
 * The API answers only holders of its home's token (issue 26). Node-side
 * requests get it here, once for every suite: while a server started by
 * startServer runs, every fetch to its origin carries
 * `Authorization: Bearer <token read from <home>/api-token>` unless the
 * request names an Authorization of its own (pass `rawFetch` to send none).
 * Browser contexts log in through a fresh one-time link (launchBrowser).
 */
const homes = new Map(); // origin -> home of a live server
export const rawFetch = globalThis.fetch;

/** The API token of the server at origin (read on every use: a test may rotate it). */
export function tokenFor(origin) {
  const home = homes.get(new URL(origin).origin);
  if (!home) throw new Error(`no server started by the harness serves ${origin}`);
  return readFileSync(join(home, 'api-token'), 'utf8').trim();
}

globalThis.fetch = function fetchWithToken(input, init) {
  let origin;
  try {
    origin = new URL(input instanceof Request ? input.url : String(input)).origin;
  } catch {
    return rawFetch(input, init);
  }
  if (!homes.has(origin)) return rawFetch(input, init);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${tokenFor(origin)}`);
  return rawFetch(input, { ...init, headers });
};

/** Logs a browser context in to the server at url through a fresh one-time login link. */
export async function loginContext(context, url) {
  const origin = new URL(url).origin;
  const res = await fetch(`${origin}/api/login-link`, { method: 'POST' });
  if (!res.ok) throw new Error(`cannot get a login link from ${origin}: ${res.status} ${await res.text()}`);
  const { url: link } = await res.json();
  const page = await context.request.get(link, { maxRedirects: 0 });
  if (page.status() !== 303) throw new Error(`the login link of ${origin} answered ${page.status()}`);
}

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

  let printedLink;
  const linkPrinted = new Promise((resolve) => {
    printedLink = resolve;
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`clawboo serve printed no URL in 15 s\n${stderr}`)), 15_000);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (/^http:\/\/\S+\/\?login=\S+$/.test(line)) printedLink(line);
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

  const origin = new URL(url).origin;
  homes.set(origin, home);
  exited.then(() => {
    if (homes.get(origin) === home) homes.delete(origin);
  });

  if (!welcome) {
    // An older backend without the route answers 404: it has no welcome to skip.
    await fetch(`${url}/api/onboarding/skip`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).catch(() => {});
  }

  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    home,
    /** The server's process id (benchmarks read its CPU time). */
    pid: child.pid,
    addr: new URL(url).host,
    stderr: () => stderr,
    /** The one-time login link serve printed on its own line after the serving line. */
    loginLink: () => linkPrinted,
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

/**
 * Launches headless Chromium. Playwright gives each launch a fresh
 * temporary profile (user data dir). Every context it makes is logged in
 * (loginContext) to each server the harness runs at that moment.
 */
export async function launchBrowser() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const newContext = browser.newContext.bind(browser);
  /** A context logged in nowhere (for tests of the login itself). */
  browser.newContextWithoutLogin = newContext;
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    for (const origin of homes.keys()) {
      // A server a test has just killed (still in the map until its exit
      // is seen) refuses the connection: it has nothing to log in to.
      await loginContext(context, origin).catch((err) => {
        if (!/ECONNREFUSED|fetch failed/.test(`${err.message} ${err.cause?.code ?? ''}`)) throw err;
      });
    }
    return context;
  };
  return browser;
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
