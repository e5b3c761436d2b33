// Browser tests of the Approvals page as a newcomer meets it (issue 16): a
// request's title shows its arguments exactly as the program receives them
// (no upper-casing), and answered requests stay visible as a history with
// the answer and where it was given (the page, a popup, the API) — as the server
// knows it, never as the client claims.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/approvals-ui.test.mjs)

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openPage, requireBin } from './harness.mjs';
import { approvalsRig, pathExists } from './mcptools.mjs';

const rig = approvalsRig(requireBin(), 'clawboo-approvals-ui-home-');
const { askDelete, api, card, pendingId } = rig;
const exists = pathExists;

const SHOTS = process.env.UI_SCREENSHOTS || '';

describe('approvals page', () => {
  test('the title shows the arguments as the program receives them', async () => {
    const { page, context, problems } = await openPage(rig.browser, `${rig.server.url}/#/approvals`, { viewport: { width: 1280, height: 800 } });
    try {
      const { path, answer } = await askDelete('Mixed-Case_Scratch.txt', 'tidy up');
      const id = await pendingId(path);
      const c = card(page, id);
      await c.waitFor();
      const shown = await c.locator('h3').innerText();
      assert.ok(shown.includes(path), `the title shows ${path} as it is: ${JSON.stringify(shown)}`);
      const transform = await c.locator('h3').evaluate((el) => getComputedStyle(el).textTransform);
      assert.equal(transform, 'none');
      if (SHOTS) {
        await mkdir(SHOTS, { recursive: true });
        await page.screenshot({ path: join(SHOTS, 'approvals-1280-pending.png') });
        await page.setViewportSize({ width: 800, height: 600 });
        await page.screenshot({ path: join(SHOTS, 'approvals-800-pending.png') });
      }
      await c.getByTestId('approval-deny').click();
      await answer;
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('answered requests stay visible with the answer and where it was given', async () => {
    const { page, context, problems } = await openPage(rig.browser, `${rig.server.url}/#/approvals`, { viewport: { width: 1280, height: 800 } });
    try {
      const a = await askDelete('history-page', 'one');
      const b = await askDelete('history-api', 'two');
      const aId = await pendingId(a.path);
      const bId = await pendingId(b.path);
      await card(page, aId).waitFor();
      await card(page, aId).getByTestId('approval-allow').click();
      await a.answer;
      assert.equal((await api('POST', `/api/approvals/${bId}/resolve`, { decision: 'deny', by: 'popup', note: 'not this one' })).status, 200);
      await b.answer;
      const row = (id) => page.locator(`[data-testid="approval-history-row"][data-approval-id="${id}"]`);
      await row(aId).waitFor();
      await row(bId).waitFor();
      const aText = (await row(aId).innerText()).replace(/\s+/g, ' ');
      const bText = (await row(bId).innerText()).replace(/\s+/g, ' ');
      assert.match(aText, /Allowed/, aText);
      assert.match(aText, /on the Approvals page/, aText);
      assert.ok(aText.includes(a.path), aText);
      assert.match(bText, /Denied/, bText);
      // The program said it was the popup; the server records what it knows
      // (issue 26 §2.5d): an answer made with the API token is "through the API".
      assert.match(bText, /through the API/, bText);
      assert.doesNotMatch(bText, /popup/, bText);
      assert.match(bText, /not this one/, bText);
      // Still there after a reload: the history is the backend's.
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      await row(aId).waitFor();
      await row(bId).waitFor();
      const ids = await page.$$eval('[data-testid="approval-history-row"]', (els) => els.map((e) => e.getAttribute('data-approval-id')));
      assert.ok(ids.indexOf(bId) < ids.indexOf(aId), `newest answer first: ${ids}`);
      if (SHOTS) {
        await page.screenshot({ path: join(SHOTS, 'approvals-1280-history.png') });
        await page.setViewportSize({ width: 800, height: 600 });
        await page.screenshot({ path: join(SHOTS, 'approvals-800-history.png') });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
