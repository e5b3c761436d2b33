// The run pane survives a backend crash: its stream reconnects with
// Last-Event-ID and resumes without repeating text, and the shell's
// connection indicator tells the user meanwhile. Its own server, because
// the test kills it.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';

requireBin();

const servers = [];
let browser;

after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
  if (servers[0]) await rm(servers[0].home, { recursive: true, force: true });
});

const read = (page) =>
  page.evaluate(() => {
    const t = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    return {
      status: t('run-status'),
      output: t('run-output'),
      error: t('run-error'),
      connection: document.querySelector('[data-testid="connection"]')?.getAttribute('data-state'),
    };
  });

test('a crashed and restarted backend: the stream resumes and the run ends failed, text intact', { timeout: 30_000 }, async () => {
  const first = await startServer();
  servers.push(first);
  browser = await launchBrowser();
  const { page, problems } = await openPage(browser, first.url);

  const res = await page.request.post(`${first.url}/api/runtimes/clawboo-mock/run`, {
    data: { message: '!ok before-crash\n!silent 20000\n!ok never', wait: false },
  });
  const { runId } = await res.json();
  // Which id each connection to the run's stream resumed after.
  const resumedAfter = [];
  page.on('request', (req) => {
    if (req.url().endsWith(`/api/runs/${runId}/events`)) resumedAfter.push(req.headers()['last-event-id'] ?? null);
  });
  await page.goto(`${first.url}/#/runs/${runId}`);
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="run-output"]')?.textContent === 'before-crash' &&
      document.querySelector('[data-testid="run-status"]')?.textContent === 'running',
    null,
    { timeout: 5_000 },
  );

  await first.kill();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') === 'offline',
    null,
    { timeout: 5_000 },
  );

  // Same home and port: the new process marks the orphaned run failed and
  // appends its done event; the page's reconnect asks only for what follows.
  const second = await startServer({ home: first.home, addr: first.addr });
  servers.push(second);
  await page.waitForFunction(
    () => document.querySelector('[data-testid="run-status"]')?.textContent === 'failed',
    null,
    { timeout: 15_000 },
  );
  const v = await read(page);
  assert.equal(v.output, 'before-crash', 'no text lost or repeated across the reconnect');
  // The first connection starts from scratch; the reconnects resume after
  // the last event seen (status init = 1, text = 2), never from the start.
  assert.equal(resumedAfter[0], null);
  assert.ok(resumedAfter.length >= 2, `reconnected: ${JSON.stringify(resumedAfter)}`);
  for (const id of resumedAfter.slice(1)) assert.equal(id, '2');
  assert.match(v.error, /orphaned/);
  await page.waitForFunction(
    () => document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') === 'online',
    null,
    { timeout: 15_000 },
  );
  // Reconnect attempts against the dead server log network errors in the
  // console; only uncaught page errors count here.
  assert.deepEqual(problems.filter((p) => p.startsWith('page error')), []);
});
