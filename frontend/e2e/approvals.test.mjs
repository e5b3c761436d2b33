// Browser tests of the approvals view against a real `clawboo serve`: a
// pending request is made the way an agent makes one, by calling
// clawboo-tools' delete_path (high risk: a person is asked) over HTTP MCP
// with the home's attach token. The card shows the request as text, the
// sidebar badge counts it, Allow lets the call run, an answer given
// elsewhere (the API) takes the card down live, and a late click says
// "already answered".
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/approvals.test.mjs)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, requireBin } from './harness.mjs';
import { approvalsRig, pathExists } from './mcptools.mjs';

const rig = approvalsRig(requireBin(), 'clawboo-approvals-home-');
const { askDelete, api, card, pendingId } = rig;
const exists = pathExists;

describe('approvals', () => {
  test('a request shows live with its details, the badge counts it, and Allow lets it run', async () => {
    const { page, context, problems } = await openPage(rig.browser, `${rig.server.url}/#/approvals`);
    try {
      await page.getByTestId('approvals-view').waitFor();
      await page.getByTestId('approvals-empty').waitFor();
      assert.equal(await page.getByTestId('approvals-badge').count(), 0);

      const why = '<b>tidy</b> the scratch folder';
      const { path, answer } = await askDelete('scratch-allow', why);
      const id = await pendingId(path);
      const c = card(page, id);
      await c.waitFor();
      assert.equal((await page.getByTestId('approvals-badge').textContent()).trim(), '1');
      assert.equal(await c.getByTestId('approval-program').textContent(), 'delete_path');
      assert.match(await c.getByTestId('approval-args').textContent(), new RegExp(path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
      // The agent's reason is text, never markup.
      assert.equal((await c.getByTestId('approval-reason').textContent()).trim(), why);
      assert.equal(await c.locator('b').count(), 0);
      assert.equal(await c.getAttribute('data-risk'), 'high');
      assert.match(await c.getByTestId('approval-risk').textContent(), /high risk/);
      assert.match(await c.getByTestId('approval-time-left').textContent(), /^(10m 00s|9m \d\ds) left$/);

      await c.getByTestId('approval-allow').click();
      await c.waitFor({ state: 'detached' });
      // Focus does not fall to the top of the document with the card.
      await page.waitForFunction(() => document.activeElement?.id === 'approvals-h', null, { timeout: 2_000 });
      const res = await answer;
      assert.notEqual(res.result.isError, true, JSON.stringify(res));
      assert.equal(await exists(path), false, 'the approved delete ran');
      await page.getByTestId('approvals-badge').waitFor({ state: 'detached' });
      const { json } = await api('GET', `/api/approvals/${id}`);
      assert.equal(json.approval.status, 'approved');
      assert.equal(json.approval.resolvedBy, 'page');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('Deny refuses; an answer given elsewhere takes the card down; a late click says already answered', async () => {
    const { page, context, problems } = await openPage(rig.browser, `${rig.server.url}/#/approvals`);
    try {
      await page.getByTestId('approvals-view').waitFor();

      // Deny from the page: the call is refused and the folder stays.
      const denied = await askDelete('scratch-deny', 'cleanup');
      const deniedId = await pendingId(denied.path);
      await card(page, deniedId).getByTestId('approval-deny').click();
      await card(page, deniedId).waitFor({ state: 'detached' });
      assert.equal((await denied.answer).result.isError, true);
      assert.equal(await exists(denied.path), true);

      // Answered through the API: the card leaves live, the badge with it.
      const elsewhere = await askDelete('scratch-elsewhere', 'cleanup');
      const elsewhereId = await pendingId(elsewhere.path);
      await card(page, elsewhereId).waitFor();
      await page.getByTestId('approvals-badge').waitFor();
      assert.equal((await api('POST', `/api/approvals/${elsewhereId}/resolve`, { decision: 'deny' })).status, 200);
      await card(page, elsewhereId).waitFor({ state: 'detached' });
      await page.getByTestId('approvals-badge').waitFor({ state: 'detached' });
      await elsewhere.answer;

      // Answered elsewhere between the person's look and click: 409, said in words.
      const late = await askDelete('scratch-late', 'cleanup');
      const lateId = await pendingId(late.path);
      await card(page, lateId).waitFor();
      await page.route('**/api/approvals/*/resolve', async (route) => {
        await api('POST', `/api/approvals/${lateId}/resolve`, { decision: 'deny' });
        await route.continue();
      });
      await card(page, lateId).getByTestId('approval-allow').click();
      const err = card(page, lateId).getByTestId('approval-error');
      await err.waitFor();
      assert.equal((await err.textContent()).trim(), 'already answered');
      assert.equal(await exists(late.path), true, 'a late allow never runs');
      await card(page, lateId).getByTestId('approval-dismiss').click();
      await card(page, lateId).waitFor({ state: 'detached' });
      await late.answer;
      // The one 409 the browser logs for the late click is expected.
      assert.deepEqual(
        problems.filter((p) => !/409/.test(p)),
        [],
      );
    } finally {
      await context.close();
    }
  });
  // The backend makes run-tied requests only for a native run's run_command
  // (a scripted provider is needed for that); here the approvals routes are
  // answered by the test for a real mock run, to prove the run pane shows its
  // card and answers it in place.
  test('a run pane shows its pending request inline and answers it in place', async () => {
    const started = await api('POST', '/api/runtimes/clawboo-mock/run', { message: '!ok hi', wait: false });
    assert.ok(started.status < 300, JSON.stringify(started.json));
    const runId = started.json.runId;
    assert.ok(runId, JSON.stringify(started.json));
    // A real task, so the card can name it by its title (never its id).
    const made = await api('POST', '/api/board', { title: 'Check that echo works', kind: 'research' });
    assert.ok(made.status < 300, JSON.stringify(made.json));
    const taskId = made.json.task.id;
    const now = Date.now();
    const request = {
      id: 'ap-run-1',
      kind: 'command',
      title: '',
      command: 'echo hi',
      folder: '/tmp/wt',
      agentId: 'builder',
      taskId,
      runId,
      reason: 'Check that echo works.',
      risk: 'medium',
      status: 'pending',
      createdAt: now,
      expiresAt: now + 600_000,
    };
    const { page, context, problems } = await openPage(rig.browser, `${rig.server.url}/#/runs/${encodeURIComponent(runId)}`);
    try {
      let answered = null;
      await page.route('**/api/approvals', (route) =>
        route.fulfill({ contentType: 'application/json', body: JSON.stringify({ approvals: answered ? [] : [request] }) }),
      );
      await page.route('**/api/approvals/ap-run-1/resolve', async (route) => {
        answered = JSON.parse(route.request().postData() ?? '{}');
        await route.fulfill({ contentType: 'application/json', body: JSON.stringify({ approval: { ...request, status: 'approved' } }) });
      });
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      const pane = page.getByTestId('run-approvals');
      await pane.waitFor();
      const c = pane.locator('[data-testid="approval-card"][data-approval-id="ap-run-1"]');
      assert.equal(await c.getByTestId('approval-program').textContent(), 'echo hi');
      assert.equal(await c.getByTestId('approval-folder').textContent(), '/tmp/wt');
      assert.equal(await c.getByTestId('approval-task').getAttribute('href'), `#/board/${taskId}`);
      await page.waitForFunction(
        (id) => /Check that echo works/.test(document.querySelector(`[data-approval-id="${id}"] [data-testid="approval-task"]`)?.textContent ?? ''),
        'ap-run-1',
      );
      assert.equal((await page.getByTestId('approvals-badge').textContent()).trim(), '1');
      await c.getByTestId('approval-allow').click();
      await pane.waitFor({ state: 'detached' });
      assert.deepEqual(answered, { decision: 'approve', by: 'page' });
      await page.getByTestId('approvals-badge').waitFor({ state: 'detached' });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
