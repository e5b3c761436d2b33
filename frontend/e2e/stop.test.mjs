// Browser test of Stop on a working member (issue 25 §4): a team on the
// mock runtime, a long delegated task, the member's Stop pressed in the
// room's mission control. The room must say "Stopped by you" naming the
// task and the member, and — after the dispatch pump has run again (its
// period is shortened with CLAWBOO_TEAM_PUMP_EVERY, and its passes are
// counted in the mission's pumpPasses, so the test watches passes happen
// instead of sleeping) — no new run of the task may have started. A
// person's Run again afterwards works and is reported as usual.
//
//   (cd frontend && npm run build) && CGO_ENABLED=0 go build -o /tmp/clawboo . && \
//     (cd frontend && CLAWBOO_BIN=/tmp/clawboo node --test --test-concurrency=1 e2e/stop.test.mjs)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { until } from './checks.mjs';
import { apiOk } from './api.mjs';
import { openPage, requireBin } from './harness.mjs';
import { useSuite } from './suite.mjs';

const api = (method, path, body) => apiOk(server, method, path, body);

requireBin();

let server;
let browser;

useSuite({ server: { env: { ...process.env, CLAWBOO_TEAM_PUMP_EVERY: '250ms' } } }, (s) => ({ server, browser } = s));


const posts = async (teamId) => (await api('GET', `/api/teams/${encodeURIComponent(teamId)}/chat?after=0`)).posts;
const mission = (teamId) => api('GET', `/api/teams/${encodeURIComponent(teamId)}/mission`);
const runsOf = async (taskId) => (await api('GET', '/api/runs?limit=200')).runs.filter((r) => r.taskId === taskId);

describe('stop', { timeout: 120_000 }, () => {
  test("a member's Stop in the room is final: no new run after the pump, the room says Stopped by you", async () => {
    const { agent: lead } = await api('POST', '/api/agents', { name: 'Stop Lead', runtime: 'clawboo-mock' });
    const { agent: coder } = await api('POST', '/api/agents', { name: 'Coder', runtime: 'clawboo-mock' });
    const { team } = await api('POST', '/api/teams', { name: 'Stop crew', leaderAgentId: lead.id });
    await api('POST', `/api/teams/${encodeURIComponent(team.id)}/agents`, { agentId: coder.id });

    const { page, context, problems } = await openPage(browser, `${server.url}/#/teams/${encodeURIComponent(team.id)}`, {
      viewport: { width: 1280, height: 800 },
    });
    try {
      await page.waitForSelector(`[data-testid="mission-member"][data-agent-id="${coder.id}"]`);
      // The leader delegates a long task: the child streams a line, then works silently until stopped.
      await api('POST', `/api/teams/${encodeURIComponent(team.id)}/chat`, {
        message: '!delegate @Coder kind=research Write the parser\\n!ok working on it\\n!silent 600000\\n!ok done\n!ok delegated',
      });
      const member = page.locator(`[data-testid="mission-member"][data-agent-id="${coder.id}"]`);
      await page.waitForSelector(`[data-testid="mission-member"][data-agent-id="${coder.id}"][data-state="working"]`, { timeout: 20_000 });
      const task = await until('the delegated task to be in progress', async () =>
        (await api('GET', `/api/board?teamId=${encodeURIComponent(team.id)}`)).tasks.find(
          (t) => t.title === 'Write the parser' && t.status === 'in_progress' && t.runId,
        ),
      );
      assert.equal(task.assigneeAgentId, coder.id, 'the delegated card names its member');

      // The person presses the member's Stop.
      await member.getByTestId('mission-member-stop').click();
      const stopPost = page.locator('[data-testid="team-post"]', { hasText: 'Stopped by you: "Write the parser" for @Coder' });
      await stopPost.first().waitFor({ timeout: 20_000 });
      const stored = await until('the stop post', async () => (await posts(team.id)).find((p) => p.kind === 'stop'));
      assert.equal(stored.taskId, task.id, 'the stop post names its task');

      const [stopped] = await runsOf(task.id);
      await until('the run to end', async () => (await runsOf(task.id))[0]?.status === 'aborted');
      const run = (await runsOf(task.id))[0];
      assert.equal(run.id, stopped.id);
      assert.match(run.error, /^Stopped by you/, 'the run says who stopped it');

      // Watch the pump make passes after the stop (it used to restart the task about 30 s later).
      const from = (await mission(team.id)).pumpPasses;
      assert.equal(typeof from, 'number', 'the mission counts the pump passes');
      await until('two more pump passes', async () => (await mission(team.id)).pumpPasses >= from + 2);
      const runs = await runsOf(task.id);
      assert.equal(runs.length, 1, `no new run after the stop: ${JSON.stringify(runs.map((r) => [r.id, r.status]))}`);
      const now = (await api('GET', `/api/board/${encodeURIComponent(task.id)}`)).task;
      assert.equal(now.status, 'todo', 'the stopped task waits in To do');
      const texts = (await posts(team.id)).map((p) => p.body);
      assert.ok(!texts.some((b) => /did not start|attempt \d of \d/.test(b)), `the stop is not a failed start:\n${texts.join('\n')}`);
      await page.waitForSelector(`[data-testid="mission-member"][data-agent-id="${coder.id}"][data-state="idle"]`);

      // The person's Run again works and is reported as usual.
      await api('PATCH', `/api/board/${encodeURIComponent(task.id)}`, { description: 'Write the parser\n!ok parsed it' });
      await api('POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id, assigneeAgentId: coder.id, wait: false });
      await page
        .locator('[data-testid="team-post"]', { hasText: 'Report on "Write the parser": done.' })
        .first()
        .waitFor({ timeout: 20_000 });
      assert.equal((await runsOf(task.id)).length, 2, 'Run again started exactly one run');
      assert.deepEqual(
        problems.filter((p) => !/Failed to load resource/.test(p)),
        [],
      );
    } finally {
      await context.close();
    }
  });
});
