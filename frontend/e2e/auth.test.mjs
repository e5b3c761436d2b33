// Browser tests of the API's door (issue 26 §1): a browser gets in only
// through a one-time login link, which works once; the page without the
// session is the login page, never the app; a session of another Clawboo
// home on the same machine (cookies ignore ports) is not this one's.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, rawFetch, requireBin, startServer, tokenFor } from './harness.mjs';

requireBin();

let a;
let b;
let browser;

before(async () => {
  [a, b] = await Promise.all([startServer(), startServer()]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await a?.stop();
  await b?.stop();
});

/** A fresh context logged in nowhere, and a page in it. */
async function bare() {
  const context = await browser.newContextWithoutLogin();
  return { context, page: await context.newPage() };
}

async function showsLogin(page) {
  await page.waitForSelector('body[data-login="needed"]', { timeout: 10_000 });
  assert.equal(await page.$('body[data-ready="1"]'), null, 'the app loaded without a session');
  return page.textContent('body');
}

describe('login', () => {
  test('without a session the page is the login page and the API refuses', async () => {
    const { context, page } = await bare();
    try {
      const res = await page.goto(`${a.url}/`);
      assert.equal(res.status(), 401);
      assert.match(await showsLogin(page), /clawboo open/);
      const api = await page.evaluate(async () => (await fetch('/api/board')).status);
      assert.equal(api, 401);
      // Node without the token: 401 too, and it says how to get in.
      const raw = await rawFetch(`${a.url}/api/board`);
      assert.equal(raw.status, 401);
      assert.match((await raw.json()).error, /clawboo open/);
    } finally {
      await context.close();
    }
  });

  test('the printed link logs in once, and leaves the address without the code', async () => {
    const link = await a.loginLink();
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/\?login=[\w-]+$/);
    assert.ok(!link.includes(tokenFor(a.url)), 'the link carries the API token');
    const one = await bare();
    const two = await bare();
    try {
      await one.page.goto(link);
      await one.page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
      assert.equal(one.page.url(), `${a.url}/`, 'the code stayed in the address');
      const cookies = await one.context.cookies(a.url);
      assert.equal(cookies.length, 1);
      assert.ok(cookies[0].httpOnly && cookies[0].sameSite === 'Strict', JSON.stringify(cookies[0]));
      assert.ok(!cookies[0].value.includes(tokenFor(a.url)), 'the cookie is the token');
      assert.equal(await one.page.evaluate(() => document.cookie), '', 'the session cookie is readable by scripts');
      const api = await one.page.evaluate(async () => (await fetch('/api/board')).status);
      assert.equal(api, 200);

      // The same link again, from another browser: refused.
      const res = await two.page.goto(link);
      assert.equal(res.status(), 401);
      assert.match(await showsLogin(two.page), /already used/);
      assert.deepEqual(await two.context.cookies(a.url), []);
    } finally {
      await one.context.close();
      await two.context.close();
    }
  });

  test("another home's session is refused (one browser, two Clawboos, cookies shared across ports)", async () => {
    const { context, page } = await bare();
    try {
      const res = await rawFetch(`${a.url}/api/login-link`, { method: 'POST', headers: { authorization: `Bearer ${tokenFor(a.url)}` } });
      const { url: link } = await res.json();
      await page.goto(link);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
      // The browser now sends home A's cookie to B as well: B shows its login page.
      const other = await page.goto(`${b.url}/`);
      assert.equal(other.status(), 401);
      await showsLogin(page);
      const api = await page.evaluate(async () => (await fetch('/api/board')).status);
      assert.equal(api, 401);
      // And A still lets it in.
      await page.goto(`${a.url}/`);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  test('rotating the token ends an open page\'s session: its next step shows the login page, not errors', async () => {
    const c = await startServer();
    const { context, page } = await bare();
    try {
      const res = await rawFetch(`${c.url}/api/login-link`, { method: 'POST', headers: { authorization: `Bearer ${tokenFor(c.url)}` } });
      await page.goto((await res.json()).url);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
      const old = tokenFor(c.url);
      await promisify(execFile)(process.env.CLAWBOO_BIN, ['token', '--rotate', '--home', c.home]);
      assert.notEqual(tokenFor(c.url), old);
      // The page's next read (moving to the board) meets the 401 and reloads to the login page.
      await page.getByTestId('nav-board').click();
      assert.match(await showsLogin(page), /clawboo open/);
    } finally {
      await context.close();
      await c.stop();
    }
  });
});
