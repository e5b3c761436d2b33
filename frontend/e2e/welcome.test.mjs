// Browser tests of the first-run welcome against a real `clawboo serve`
// (a fresh home each, the welcome kept): a repository that does not exist
// is refused at its field before anything is stored or created; the first
// field has the focus and a skip link leads past the sidebar; the Coder's
// "ask to run commands" switch is off unless ticked and reaches the Coder
// only; and, the mock runtime being on, the keyless demo team runs its
// suggested message from the room to a report-up.
//
//   (cd frontend && npm run build) && CGO_ENABLED=0 go build -o /tmp/clawboo . && \
//     (cd frontend && CLAWBOO_BIN=/tmp/clawboo node --test e2e/welcome.test.mjs)

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { GOOD_KEY, makeWorld } from './world.mjs';

requireBin();

let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

/** Console errors other than refusals a test provoked on purpose. */
const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|409)/.test(p));

describe('welcome', { timeout: 120_000 }, () => {
  test('a repository that does not exist is refused at its field, and nothing is stored or created', async () => {
    const server = await startServer({ welcome: true });
    const scratch = await mkdtemp(join(tmpdir(), 'clawboo-welcome-'));
    const missing = join(scratch, 'no-such-project');
    const { page, context, problems } = await openPage(browser, server.url, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('welcome').waitFor();
      await page.waitForSelector('[data-testid="welcome-provider"] option[value="anthropic"]', { state: 'attached' });
      // The first field has the focus.
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'welcome-provider');

      await page.getByTestId('welcome-provider').selectOption('anthropic');
      await page.getByTestId('welcome-key').fill('sk-ant-not-checked');
      await page.getByTestId('welcome-repo').fill(missing);
      await page.getByTestId('welcome-create').click();
      const shown = page.getByTestId('welcome-repo-error');
      await shown.filter({ hasText: `${missing} does not exist: give the folder of a git repository` }).waitFor();
      assert.equal(await page.getByTestId('welcome-error').count(), 0, 'the words are at the repository field, not elsewhere');
      assert.equal(await page.evaluate(() => location.hash), '#/welcome');

      const state = await apiOk(server, 'GET', '/api/onboarding/state');
      assert.equal(state.teams, 0, 'no team');
      assert.equal(state.providers.find((p) => p.id === 'anthropic').connected, false, 'the key was not stored');
      assert.deepEqual((await apiOk(server, 'GET', '/api/agents')).agents, [], 'no agent');

      // A folder that is not a repository: the words say what to do.
      await page.getByTestId('welcome-repo').fill(scratch);
      await page.getByTestId('welcome-create').click();
      await shown.filter({ hasText: `${scratch} is not a git repository: run git init there and make a first commit` }).waitFor();
      assert.equal((await apiOk(server, 'GET', '/api/teams')).teams.length, 0);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    }
  });

  test('a skip link leads past the sidebar to the page', async () => {
    // The board, freshly loaded: nothing has the focus, so the first Tab starts at the top of the document.
    const server = await startServer();
    const { page, context, problems } = await openPage(browser, `${server.url}/#/board`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('nav-teams').waitFor();
      await page.keyboard.press('Tab');
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'skip-to-content');
      const box = await page.getByTestId('skip-to-content').boundingBox();
      assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.id === 'main');
      await page.keyboard.press('Tab');
      assert.ok(
        await page.evaluate(() => document.getElementById('main')?.contains(document.activeElement)),
        'the next Tab stop is in the page, past the sidebar',
      );
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('the Coder may ask to run commands only when the person ticks it', async () => {
    const world = await makeWorld({ welcome: true });
    const { page, context, problems } = await openPage(browser, world.url, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('welcome').waitFor();
      await page.waitForSelector('[data-testid="welcome-provider"] option[value="openai"]', { state: 'attached' });
      await page.getByTestId('welcome-provider').selectOption('openai');
      assert.equal(await page.getByTestId('welcome-coder-shell').isChecked(), false, 'off by default');
      await page.getByText('You are asked before every command').waitFor();
      await page.getByTestId('welcome-coder-shell').check();
      await page.getByTestId('welcome-key').fill(GOOD_KEY);
      await page.getByTestId('welcome-create').click();
      await page.waitForFunction(() => /^#\/teams\/.+/.test(location.hash), null, { timeout: 20_000 });
      const teamId = await page.evaluate(() => decodeURIComponent(location.hash.slice('#/teams/'.length)));
      const { team } = await apiOk(world.server, 'GET', `/api/teams/${encodeURIComponent(teamId)}`);
      const shells = {};
      for (const m of team.members) {
        const { agent } = await apiOk(world.server, 'GET', `/api/agents/${encodeURIComponent(m.agentId)}`);
        shells[m.name] = agent.config?.tools?.shell === true;
      }
      assert.deepEqual(shells, { Lead: false, Coder: true, Researcher: false });
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
      await world.close();
    }
  });

  test('with the mock runtime on, a keyless demo team runs its first message to a report-up', async () => {
    const server = await startServer({ welcome: true });
    const { page, context, problems } = await openPage(browser, server.url, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('welcome').waitFor();
      await page.getByTestId('welcome-demo').click();
      await page.waitForFunction(() => /^#\/teams\/.+/.test(location.hash), null, { timeout: 20_000 });
      const teamId = await page.evaluate(() => decodeURIComponent(location.hash.slice('#/teams/'.length)));
      const { team } = await apiOk(server, 'GET', `/api/teams/${encodeURIComponent(teamId)}`);
      assert.deepEqual(
        team.members.map((m) => [m.name, m.runtime]),
        [
          ['Lead', 'clawboo-mock'],
          ['Coder', 'clawboo-mock'],
          ['Researcher', 'clawboo-mock'],
        ],
      );
      // The suggested message waits in the composer; sent as it is, the leader delegates and the member reports up.
      await page.waitForFunction(() => /!delegate @Researcher/.test(document.querySelector('[data-testid="team-message"]')?.value ?? ''));
      await page.getByTestId('team-send').click();
      await page.locator('[data-testid="team-post"][data-kind="delegate"]', { hasText: '@Researcher' }).waitFor({ timeout: 20_000 });
      await page.locator('[data-testid="team-post"]', { hasText: /Report on "Say hello to the person"/ }).waitFor({ timeout: 30_000 });
      const { tasks } = await apiOk(server, 'GET', `/api/board?teamId=${encodeURIComponent(teamId)}`);
      const child = tasks.find((t) => t.parentId && t.title.startsWith('Say hello to the person'));
      assert.equal(child?.status, 'done', JSON.stringify(tasks.map((t) => [t.title, t.status])));
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });
});
