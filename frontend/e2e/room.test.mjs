// Browser tests of a team's room (issue 25, items 6–9) against a real
// `clawboo serve` with the mock runtime: posts drawn as markdown without
// ever becoming HTML; a post about a task linking to the task's drawer by
// its title, and to its diff when it has one; stop and merge notes drawn as
// Clawboo's; a member waiting for an approval shown inline with Allow and
// Deny, by name; Stop usable only while something runs, its note cleared
// once the room moved on; a member's live output expanded in place.
//
// Where the backend does not make a state on demand, the test shapes the
// answer the page reads (page.route): the history with taskId/kind "stop"
// and "merge" posts (the contract's fields), a task's worktree and diff, and
// one pending approval. Tasks, agents, teams and runs are real.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/room.test.mjs)

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';

const api = (method, path, body) => apiOk(server, method, path, body);

requireBin();
// Screenshots for a person to look at, beside e2e/a11y.test.mjs's (git-ignored).
const ARTIFACTS = process.env.CLAWBOO_ARTIFACTS || join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** The page at 1280×800 and 800×600, saved as room-<name>-<size>.png. */
async function shoot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  for (const [width, height] of [
    [1280, 800],
    [800, 600],
  ]) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    await page.screenshot({ path: join(ARTIFACTS, `room-${name}-${width}x${height}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

let server;
let browser;

useSuite({}, (s) => ({ server, browser } = s));

/** A team with a mock leader and a mock member. */
async function crew(name) {
  const { agent: lead } = await api('POST', '/api/agents', { name: `${name} Lead`, runtime: 'clawboo-mock' });
  const { agent: dev } = await api('POST', '/api/agents', { name: `${name} Dev`, runtime: 'clawboo-mock' });
  const { team } = await api('POST', '/api/teams', { name, leaderAgentId: lead.id });
  await api('POST', `/api/teams/${encodeURIComponent(team.id)}/agents`, { agentId: dev.id });
  return { team, lead, dev };
}

const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|401|409|503)/.test(p));

describe('the team room', { timeout: 120_000 }, () => {
  test('posts are markdown, never HTML; a post about a task links to it by title and to its diff; stop and merge are notes', async () => {
    const { team, lead, dev } = await crew('Linkers');
    const { task } = await api('POST', '/api/board', { title: 'Add NOTES.md with one line', kind: 'research', teamId: team.id });
    const post = (seq, over) => ({
      seq,
      teamId: team.id,
      authorAgentId: lead.id,
      authorName: 'Linkers Lead',
      kind: 'peer',
      body: '',
      assignee: null,
      assigneeName: null,
      taskId: null,
      createdAt: Date.now() - (10 - seq) * 1000,
      ...over,
    });
    const posts = [
      post(1, { body: '**Plan**\n\n- read the `README`\n- write [docs](https://example.com/docs) and [bad](javascript:alert(1))\n\n<img src=x onerror="window.__xss=1">' }),
      post(2, { kind: 'delegate', body: 'Add NOTES.md with one line', assignee: dev.id, assigneeName: 'Linkers Dev', taskId: task.id }),
      post(3, { authorAgentId: dev.id, authorName: 'Linkers Dev', body: `Report on "Add NOTES.md with one line": in review.`, taskId: task.id }),
      post(4, { authorAgentId: 'system', authorName: 'Clawboo', kind: 'stop', body: 'Stopped by you.', taskId: task.id }),
      post(5, { authorAgentId: 'system', authorName: 'Clawboo', kind: 'merge', body: 'Merged into main.', taskId: task.id }),
      // An id the room cannot name (a member since removed) is never shown.
      post(6, { kind: 'delegate', body: 'Tidy up', assignee: 'agt_gone_01', assigneeName: 'agt_gone_01' }),
      // Clawboo's older texts name a task by its id: said by its title.
      post(7, { authorAgentId: 'system', authorName: 'Clawboo', kind: 'system', body: `Task ${task.id} for @Linkers Dev did not start (attempt 1 of 3): no runtime.` }),
    ];
    const { page, context, problems } = await openPage(browser, `${server.url}/#/teams`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.route(/\/api\/teams\/[^/]+\/chat\?/, (route) => route.fulfill({ json: { posts, more: false } }));
      // The task has a worktree and a diff in this story (the real task is a research one).
      const detailUrl = new RegExp(`/api/board/${task.id}$`);
      await page.route(detailUrl, async (route) => {
        const res = await route.fetch();
        const d = await res.json();
        d.worktree = { taskId: task.id, repoPath: '/tmp/repo', path: '/tmp/wt', branch: 'clawboo/task-x', baseCommit: 'abc', status: 'active', createdAt: 1, updatedAt: 1 };
        await route.fulfill({ json: d });
      });
      await page.route(new RegExp(`/api/board/${task.id}/diff$`), (route) =>
        route.fulfill({
          json: {
            taskId: task.id,
            branch: 'clawboo/task-x',
            baseCommit: 'abc',
            changed: true,
            files: 1,
            insertions: 1,
            deletions: 0,
            diff: 'diff --git a/NOTES.md b/NOTES.md\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+one line\n',
            paths: ['NOTES.md'],
          },
        }),
      );
      await page.evaluate((id) => (location.hash = `#/teams/${encodeURIComponent(id)}`), team.id);
      await page.getByTestId('team-post').nth(6).waitFor();

      // Markdown: structure as elements; the HTML an agent wrote stays text; only http(s) links.
      const first = page.locator('[data-testid="team-post"][data-seq="1"] .body');
      assert.equal(await first.locator('strong').first().textContent(), 'Plan');
      assert.equal(await first.locator('li').count(), 2);
      assert.equal(await first.locator('code').first().textContent(), 'README');
      assert.equal(await first.locator('img, script').count(), 0, 'no element from the agent’s HTML');
      assert.match(await first.textContent(), /<img src=x onerror="window.__xss=1">/);
      assert.deepEqual(await first.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))), ['https://example.com/docs']);
      assert.equal(await page.evaluate(() => window.__xss), undefined);

      // The delegation, the report-up and the notes link to the task by its title.
      for (const seq of [2, 3, 4, 5]) {
        const link = page.locator(`[data-testid="team-post"][data-seq="${seq}"] [data-testid="team-post-task"]`);
        await page.waitForFunction((s) => document.querySelector(`[data-testid="team-post"][data-seq="${s}"] [data-testid="team-post-task"]`)?.textContent === 'Task “Add NOTES.md with one line”', seq);
        assert.equal(await link.getAttribute('href'), `#/board/${task.id}?team=${encodeURIComponent(team.id)}`);
        assert.ok(await page.locator(`[data-testid="team-post"][data-seq="${seq}"] [data-testid="team-post-diff"]`).isVisible(), `post ${seq} links to the diff`);
      }
      for (const seq of [4, 5]) {
        const note = page.locator(`[data-testid="team-post"][data-seq="${seq}"]`);
        assert.match(await note.getAttribute('class'), /\bsystem\b/, `a ${await note.getAttribute('data-kind')} post is Clawboo's note`);
        assert.equal(await note.locator('.author').textContent(), 'Clawboo');
      }
      assert.equal(await page.locator('[data-testid="team-post"][data-seq="1"] [data-testid="team-post-task"]').count(), 0, 'a post about no task has no link');
      // Names, never ids.
      assert.equal(await page.locator('[data-testid="team-post"][data-seq="2"] [data-testid="team-post-assignee"]').textContent(), '→ @Linkers Dev');
      assert.equal(await page.locator('[data-testid="team-post"][data-seq="6"] [data-testid="team-post-assignee"]').textContent(), '→ a former member');
      await page.waitForFunction(() => /Task “Add NOTES\.md with one line” for @Linkers Dev did not start/.test(document.querySelector('[data-testid="team-post"][data-seq="7"] .body')?.textContent ?? ''));
      assert.doesNotMatch(await page.getByTestId('team-posts').textContent(), new RegExp(`agt_gone_01|task-x|${task.id}`));
      await shoot(page, 'links');

      // The diff link opens the drawer with its diff in view and focused.
      await page.locator('[data-testid="team-post"][data-seq="3"] [data-testid="team-post-diff"]').click();
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'task-diff', null, { timeout: 10_000 });
      assert.match(await page.evaluate(() => location.hash), new RegExp(`^#/board/${task.id}\\?team=.+&show=diff$`));
      assert.equal(await page.getByTestId('task-drawer').getAttribute('data-task-id'), task.id);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('Stop is usable only while something runs; its note goes once the room moved on; a member’s live output opens in place', async () => {
    const { team, lead } = await crew('Stoppers');
    const { page, context, problems } = await openPage(browser, `${server.url}/#/teams/${encodeURIComponent(team.id)}`, { viewport: { width: 1280, height: 800 } });
    try {
      const disabled = (testid) => page.getByTestId(testid).first().getAttribute('aria-disabled');
      await page.locator(`[data-testid="mission-member"][data-agent-id="${lead.id}"]`).waitFor();
      // Idle: nothing to stop.
      assert.equal(await disabled('team-stop'), 'true');
      assert.equal(await disabled('mission-stop-all'), 'true');
      for (const b of await page.getByTestId('mission-member-stop').all()) assert.equal(await b.getAttribute('aria-disabled'), 'true');
      assert.match(await page.getByTestId('team-message').getAttribute('placeholder'), /Enter sends, Shift\+Enter for a new line/);

      // A turn that talks, then waits to be stopped.
      await page.getByTestId('team-message').fill('!ok working on it\n!abort');
      await page.getByTestId('team-message').press('Enter');
      const member = page.locator(`[data-testid="mission-member"][data-agent-id="${lead.id}"]`);
      await page.waitForFunction((id) => document.querySelector(`[data-testid="mission-member"][data-agent-id="${id}"]`)?.getAttribute('data-state') === 'working', lead.id, { timeout: 15_000 });
      await page.waitForFunction(() => document.querySelector('[data-testid="team-stop"]')?.getAttribute('aria-disabled') === null);
      assert.equal(await member.getByTestId('mission-member-stop').getAttribute('aria-disabled'), null);

      // The live output, read-only, in the room.
      await member.getByTestId('mission-member-watch').click();
      await page.waitForFunction(() => /working on it/.test(document.querySelector('[data-testid="mission-member-output-text"]')?.textContent ?? ''), null, { timeout: 10_000 });
      await shoot(page, 'live');

      await member.getByTestId('mission-member-stop').click();
      await page.getByTestId('mission').getByTestId('mission-stop-note').waitFor();
      assert.equal(await page.getByTestId('mission-stop-note').textContent(), 'Stopped 1 run.');
      // Once the stopped run is gone and the note was read, it goes, and Stop is idle again.
      await page.waitForFunction((id) => document.querySelector(`[data-testid="mission-member"][data-agent-id="${id}"]`)?.getAttribute('data-state') === 'idle', lead.id, { timeout: 15_000 });
      await page.getByTestId('mission-stop-note').waitFor({ state: 'detached', timeout: 15_000 });
      assert.equal(await disabled('team-stop'), 'true');
      assert.equal(await disabled('mission-stop-all'), 'true');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('a member waiting for an approval shows the card inline in the room, by name, with Allow and Deny', async () => {
    const { team, dev } = await crew('Askers');
    const { task } = await api('POST', '/api/board', { title: 'Run the migrations', kind: 'research', teamId: team.id });
    const now = Date.now();
    const request = {
      id: 'apr_room_1',
      kind: 'command',
      title: 'Run `make migrate`',
      command: 'make migrate',
      folder: '/tmp/repo',
      agentId: dev.id,
      teamId: team.id,
      taskId: task.id,
      runId: 'run_room_1',
      reason: 'The schema changed.',
      risk: 'medium',
      status: 'pending',
      createdAt: now,
      expiresAt: now + 600_000,
    };
    let answered = null;
    const { page, context, problems } = await openPage(browser, `${server.url}/#/teams`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.route(/\/api\/approvals(\?.*)?$/, (route) =>
        route.request().method() === 'GET' ? route.fulfill({ json: { approvals: answered ? [] : [request] } }) : route.fallback(),
      );
      await page.route(/\/api\/approvals\/apr_room_1\/resolve$/, (route) => {
        answered = JSON.parse(route.request().postData() ?? '{}').decision;
        return route.fulfill({ json: { approval: { ...request, status: 'approved', resolvedAt: Date.now(), resolvedBy: 'page' } } });
      });
      // The approvals are read when the app starts: start it again with the request in place.
      await page.goto(`${server.url}/#/teams/${encodeURIComponent(team.id)}`);
      await page.reload();
      const card = page.getByTestId('room-approvals').getByTestId('approval-card');
      await card.waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => document.querySelector('[data-testid="room-approvals"] [data-testid="approval-agent"]')?.textContent === 'Askers Dev');
      await page.waitForFunction(() => document.querySelector('[data-testid="room-approvals"] [data-testid="approval-task"]')?.textContent === '“Run the migrations”');
      assert.doesNotMatch(await card.locator('dl').textContent(), new RegExp(`${dev.id}|${task.id}|run_room_1`), 'ids only behind the disclosure');
      assert.ok(await card.getByTestId('approval-deny').isVisible());
      await shoot(page, 'approval');
      await card.getByTestId('approval-allow').click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="room-approvals"]'), null, { timeout: 10_000 });
      assert.equal(answered, 'approve');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });
});
