// One real install, end to end: Chromium clicks Install on Claude Code, the
// backend runs the real npm, which downloads @anthropic-ai/claude-code@2
// (about 250 MB with its native binary) from the npm registry into a
// temporary global prefix, and the card moves from "not installed" to
// "needs a key" by itself. It needs the network (the npm registry) and takes
// a minute or more; `npm run test:e2e:fast` leaves it out.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { apiRuntime, card, openRuntimes, waitState, waitText } from './cards.mjs';
import { launchBrowser, requireBin, startServer } from './harness.mjs';

requireBin();

const cleanups = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** The real npm on the runner's PATH, and the node it runs on. */
function realNpm() {
  let npm;
  try {
    npm = execFileSync('/bin/sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('this test installs with the real npm, and none is on PATH');
  }
  return { npm, node: process.execPath };
}

test('a real install of Claude Code moves its card from not installed to needs a key', { timeout: 300_000 }, async (t) => {
  const { npm, node } = realNpm();
  const root = await mkdtemp(join(tmpdir(), 'clawboo-real-install-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const prefix = join(root, 'npm-prefix');
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });

  // Only what the install needs: npm and node, plus sh tools for npm's
  // scripts. Nothing of the runner's npm configuration (`npm run` exports
  // npm_config_prefix, which would send the install to the real prefix).
  const pass = (names) => Object.fromEntries(names.filter((n) => process.env[n]).map((n) => [n, process.env[n]]));
  const env = {
    HOME: home,
    PATH: [...new Set([dirname(npm), dirname(node), '/usr/bin', '/bin'])].join(':'),
    LANG: 'C.UTF-8',
    CLAWBOO_VAULT: 'file',
    NPM_CONFIG_PREFIX: prefix,
    NPM_CONFIG_CACHE: join(root, 'npm-cache'),
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    NPM_CONFIG_FUND: 'false',
    NPM_CONFIG_AUDIT: 'false',
    ...pass(['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy']),
    ...(process.env.npm_config_cafile ? { NPM_CONFIG_CAFILE: process.env.npm_config_cafile } : {}),
    ...(process.env.npm_config_registry ? { NPM_CONFIG_REGISTRY: process.env.npm_config_registry } : {}),
  };
  const server = await startServer({ home: join(root, 'clawboo'), env });
  cleanups.push(() => server.stop());
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());

  const { page, problems, actions } = await openRuntimes(browser, { url: server.url });
  const c = card(page, 'claude-code');
  assert.equal(await c.getAttribute('data-state'), 'not-installed', `no claude reachable before the install: ${await c.innerText()}`);

  const started = Date.now();
  await c.getByTestId('install-button').click();
  await waitText(page, 'claude-code', 'install-status', /Installing Claude Code/);
  try {
    await waitState(page, 'claude-code', 'needs-auth', 280_000);
  } catch (err) {
    const log = await c.getByTestId('install-log').innerText().catch(() => '(no log)');
    throw new Error(`${err.message}\ninstall log tail:\n${log.slice(-3000)}\nserver:\n${server.stderr()}`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  t.diagnostic(`the real install of Claude Code took ${seconds} s`);

  const entry = await apiRuntime({ url: server.url }, 'claude-code');
  assert.equal(entry.binPath, join(prefix, 'bin', 'claude'), 'found in the temporary npm prefix');
  const done = c.getByTestId('install-done');
  await done.locator('summary').click();
  assert.match(await done.getByTestId('install-log').innerText(), /added \d+ packages?/);
  const version = execFileSync(entry.binPath, ['--version'], { encoding: 'utf8', env: { PATH: env.PATH, HOME: home } });
  assert.match(version, /\d+\.\d+\.\d+/, `the installed claude runs: ${version}`);
  assert.deepEqual(actions, ['install claude-code']);
  assert.deepEqual(problems, []);
});
