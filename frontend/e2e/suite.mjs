// The server, browser and scratch folder most browser suites share, started
// once before the suite's tests and stopped after them, so no suite writes
// its own before/after for them.
//
//   let server, browser, scratch;
//   useSuite({ scratch: 'clawboo-merge-e2e-', server: { mockWorktrees: true } }, (s) => ({ server, browser, scratch } = s));

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { launchBrowser, startServer } from './harness.mjs';

/**
 * Registers the suite's before and after: a scratch folder (when a prefix
 * is given; removed after), a `clawboo serve` started with `server`'s
 * options, and a browser. `assign` receives them once they are up.
 */
export function useSuite({ scratch: prefix = '', server: serverOptions = {} } = {}, assign) {
  const s = { server: null, browser: null, scratch: '' };
  before(async () => {
    if (prefix) s.scratch = await mkdtemp(join(tmpdir(), prefix));
    s.server = await startServer(serverOptions);
    s.browser = await launchBrowser();
    assign(s);
  });
  after(async () => {
    await s.browser?.close();
    await s.server?.stop();
    if (s.scratch) await rm(s.scratch, { recursive: true, force: true });
  });
}
