// Browser tests of the first-run welcome against a real `clawboo serve`
// (a fresh home each, the welcome kept): a repository that does not exist
// is refused at its field before anything is stored or created; the first
// field has the focus and a skip link leads past the sidebar; the Coder's
// "ask to run commands" switch is off unless ticked and reaches the Coder
// only; and, the mock runtime being on, the keyless demo team runs its
// suggested message from the room to a report-up. With a provider key: the
// welcome checks the key (a refused one stops it with the provider's words),
// creates the team and opens its room with the first message ready; from
// there a whole native team turn on a scripted OpenAI model (fakechat.mjs):
// two delegations run at once, report up, the leader follows up, mission
// control counts them. Skip goes to the board for good. With
// WELCOME_SCREENSHOTS=<folder> it saves the welcome at 1280×800 and 800×600.
//
//   (cd frontend && npm run build) && CGO_ENABLED=0 go build -o /tmp/clawboo . && \
//     (cd frontend && CLAWBOO_BIN=/tmp/clawboo node --test e2e/welcome.test.mjs)

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { shootSizes, shownSeqs, waitTestId } from './checks.mjs';
import { text, tools } from './fakechat.mjs';
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

/** Console errors other than refusals a test provoked on purpose (statuses, a regexp alternation). */
const unexpected = (problems, statuses = '400|409') =>
  problems.filter((p) => !new RegExp(`Failed to load resource: the server responded with a status of (${statuses})`).test(p));
// The welcome's team path is refused on purpose more ways: a wrong key (401), a provider not set up yet (503).
const TEAM_PATH_REFUSALS = '400|401|409|503';

const SHOTS = process.env.WELCOME_SCREENSHOTS || '';
const shoot = (page, name) => shootSizes(page, SHOTS, name);
const waitText = (page, testid, re, timeout = 15_000) => waitTestId(page, testid, re, timeout);

// The seeded members' system prompts (backend/api/onboarding.go seedMembers) route the fake model's scripts.
const LEAD_PROMPT = 'You lead a small software team';
const CODER_PROMPT = 'You are a careful software engineer';
const RESEARCH_PROMPT = 'You research and explain';

/** An object with its keys sorted, for comparing counts. */
const sortedKeys = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));


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

  test('the welcome checks the key, creates the team and opens its room with the first message ready', async () => {
    const world = await makeWorld({ welcome: true });
    const { page, context, problems } = await openPage(browser, world.url, { viewport: { width: 1280, height: 800 } });
    try {
      // The bare URL opens the welcome while no team exists.
      await page.getByTestId('welcome').waitFor();
      await page.waitForFunction(() => location.hash === '#/welcome');
      await page.waitForSelector('[data-testid="welcome-provider"] option[value="openai"]', { state: 'attached' });
      await shoot(page, 'welcome');
      await page.getByTestId('welcome-provider').selectOption('openai');

      // A refused key stops the flow with the provider's words; nothing is seeded.
      await page.getByTestId('welcome-key').fill('sk-wrong');
      await page.getByTestId('welcome-create').click();
      await waitText(page, 'welcome-error', /\S/);
      assert.equal((await apiOk(world, 'GET', '/api/teams')).teams.length, 0);
      assert.equal(await page.evaluate(() => location.hash), '#/welcome');

      await page.getByTestId('welcome-key').fill(GOOD_KEY);
      await page.getByTestId('welcome-create').click();
      await page.waitForFunction(() => /^#\/teams\/.+/.test(location.hash), null, { timeout: 20_000 });
      const teamId = await page.evaluate(() => decodeURIComponent(location.hash.slice('#/teams/'.length)));
      const { teams } = await apiOk(world, 'GET', '/api/teams');
      assert.deepEqual(
        teams.map((t) => t.id),
        [teamId],
      );
      assert.ok(teams[0].members.length >= 3, `a leader and two specialists: ${JSON.stringify(teams[0].members)}`);
      await page.getByTestId('team-message').waitFor();
      const draft = await page.getByTestId('team-message').inputValue();
      assert.ok(draft.trim().length > 0, 'the composer holds the suggested first message');
      assert.ok(
        world.providers.requests.some((r) => r.provider === 'openai' && r.key === GOOD_KEY),
        'the key was checked with the provider',
      );
      const state = await apiOk(world, 'GET', '/api/onboarding/state');
      assert.equal(state.needed, false, 'the welcome is done once a team exists');

      // A fresh load of the bare URL no longer opens the welcome.
      await page.goto(world.url);
      await page.waitForSelector('body[data-ready="1"][data-onboarding="checked"]');
      assert.notEqual(await page.evaluate(() => location.hash), '#/welcome');
      assert.deepEqual(unexpected(problems, TEAM_PATH_REFUSALS), []);
    } finally {
      await context.close();
      await world.close();
    }
  });

  test('from the welcome to a finished team turn: two delegations run at once, report up, and the leader follows up', async () => {
    const t0 = Date.now();
    const world = await makeWorld({ welcome: true, tools: ['git'] });
    const chat = world.providers.chat;
    // The repository the team works on, in the server's home, where the picker starts.
    const repo = join(world.home, 'project');
    await mkdir(repo);
    await writeFile(join(repo, 'README.md'), '# project\n');
    const git = (...args) =>
      execFileSync('git', ['-c', 'user.name=Clawboo E2E', '-c', 'user.email=e2e@clawboo.invalid', '-c', 'commit.gpgsign=false', ...args], {
        cwd: repo,
        stdio: 'pipe',
      });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial commit');

    // The seeded members, told apart by their system prompts (backend/api/onboarding.go). The
    // children's first answers are slow, so both are in flight at once.
    const use = (r, delay = 0) => ({ ...r, usage: { input: 1000, output: 100 }, delay });
    chat.pushWhen(
      LEAD_PROMPT,
      use(
        tools(
          { id: 'call_d1', name: 'delegate', args: { assignee: '@Coder', task: 'Add NOTES.md with one line', kind: 'code' } },
          { id: 'call_d2', name: 'delegate', args: { assignee: '@Researcher', task: 'Explain how the repository is laid out', kind: 'research' } },
        ),
      ),
      use(text('I asked Coder for NOTES.md ', 'and Researcher for a layout note.')),
      use(text('Both are done: NOTES.md waits for your review.')),
    );
    chat.pushWhen(
      CODER_PROMPT,
      use(tools({ id: 'call_w', name: 'write_file', args: { path: 'NOTES.md', content: 'notes\n' } }), 600),
      use(text('Added NOTES.md.')),
    );
    chat.pushWhen(RESEARCH_PROMPT, use(text('One README at the top; nothing else yet.'), 600));

    const { page, context, problems } = await openPage(browser, world.url, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('welcome').waitFor();
      await page.waitForSelector('[data-testid="welcome-provider"] option[value="openai"]', { state: 'attached' });
      await page.getByTestId('welcome-provider').selectOption('openai');
      await page.getByTestId('welcome-key').fill(GOOD_KEY);
      // The repository is chosen by browsing, not typed.
      await page.getByTestId('repo-browse').click();
      await page.locator(`[data-testid="repo-entry"][data-path="${repo}"][data-is-repo="true"]`).waitFor();
      await page.locator(`[data-testid="repo-entry-use"][data-path="${repo}"]`).click();
      assert.equal(await page.getByTestId('welcome-repo').inputValue(), repo);
      await page.getByTestId('welcome-create').click();
      await page.waitForFunction(() => /^#\/teams\/.+/.test(location.hash), null, { timeout: 20_000 });
      const teamId = await page.evaluate(() => decodeURIComponent(location.hash.slice('#/teams/'.length)));
      const get = (path) => apiOk(world, 'GET', path);
      const { team } = await get(`/api/teams/${encodeURIComponent(teamId)}`);
      assert.equal(team.repoPath, repo, 'the team works on the chosen repository');
      const byName = Object.fromEntries(team.members.map((m) => [m.name, m]));
      assert.deepEqual(Object.keys(byName).sort(), ['Coder', 'Lead', 'Researcher']);
      const lead = byName.Lead.agentId;

      // The person sends the suggested message as it is.
      await page.getByTestId('team-message').waitFor();
      await page.waitForFunction(() => /repository/.test(document.querySelector('[data-testid="team-message"]')?.value ?? ''));
      const sentText = await page.getByTestId('team-message').inputValue();
      await page.getByTestId('team-send').click();
      await page.locator('[data-testid="team-post"][data-kind="user"]', { hasText: sentText.slice(0, 30) }).waitFor();

      // The leader's two delegations, each to a member by name, and its reply.
      const delegations = page.locator('[data-testid="team-post"][data-kind="delegate"]');
      await delegations.filter({ hasText: '→ @Coder' }).waitFor({ timeout: 20_000 });
      await delegations.filter({ hasText: '→ @Researcher' }).waitFor({ timeout: 20_000 });
      const leadPosts = page.locator(`[data-testid="team-post"][data-author="${lead}"]:not([data-kind="delegate"])`);
      await leadPosts.filter({ hasText: 'I asked Coder for NOTES.md and Researcher for a layout note.' }).waitFor();

      // Both report up, then the leader follows up once on the [Task Update].
      const reports = page.locator('[data-testid="team-post"] .body', { hasText: /^Report on/ });
      const followUp = leadPosts.filter({ hasText: 'Both are done: NOTES.md waits for your review.' });
      await followUp.waitFor({ timeout: 30_000 });
      assert.equal(await reports.count(), 2, 'one report-up per delegation');
      const reportTexts = await reports.allTextContents();
      assert.ok(reportTexts.some((t) => /^Report on "Add NOTES\.md with one line".*in review/s.test(t)), reportTexts.join('\n'));
      assert.ok(reportTexts.some((t) => /^Report on "Explain how the repository is laid out".*done/s.test(t)), reportTexts.join('\n'));
      const seqs = await shownSeqs(page);
      assert.equal(new Set(seqs).size, seqs.length, `no post shown twice: ${seqs}`);
      const order = await page.$$eval('[data-testid="team-post"]', (els) => els.map((e) => e.querySelector('.body')?.textContent ?? ''));
      const at = (re) => order.findIndex((b) => re.test(b));
      assert.ok(at(/^Both are done/) > Math.max(...order.map((b, i) => (/^Report on/.test(b) ? i : -1))), `the follow-up comes after both reports:\n${order.join('\n')}`);

      // The model saw one [Task Update], on the leader's conversation, naming both children.
      const updates = chat.requestsWith(LEAD_PROMPT, '[Task Update]\\n- @');
      assert.equal(updates.length, 1, `[Task Update] requests: ${updates.length}`);
      assert.ok(updates[0].body.includes('@Coder') && updates[0].body.includes('@Researcher'), 'the update names both children');
      assert.deepEqual(chat.pending(), {}, 'every scripted answer was asked for');
      assert.ok(
        chat.requests.every((r) => r.json?.stream === true && r.json?.stream_options?.include_usage === true),
        'every turn streamed with usage',
      );

      // Mission control: one task in review, one done (the children; the leader's mission task is its own).
      const { tasks } = await get(`/api/board?teamId=${encodeURIComponent(teamId)}`);
      const children = tasks.filter((t) => t.parentId);
      const code = children.find((t) => t.kind === 'code');
      const research = children.find((t) => t.kind === 'research');
      assert.equal(children.length, 2, JSON.stringify(tasks.map((t) => [t.title, t.kind, t.status, t.parentId])));
      assert.equal(code?.status, 'in_review');
      assert.equal(research?.status, 'done');
      const want = {};
      for (const t of tasks) want[t.status] = (want[t.status] ?? 0) + 1;
      const shownCounts = async () =>
        sortedKeys(Object.fromEntries(
          await page.$$eval('[data-testid="mission-tasks"] a[data-status]', (as) =>
            as.map((a) => [a.getAttribute('data-status'), Number(a.querySelector('.n')?.textContent)]),
          ),
        ));
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && JSON.stringify(await shownCounts()) !== JSON.stringify(sortedKeys(want))) await page.waitForTimeout(50);
      assert.deepEqual(await shownCounts(), sortedKeys(want), 'mission control counts the team tasks by status');
      const shown = await shownCounts();
      // The code task waits for review, and so does the mission it belongs to.
      assert.equal(shown.in_review, 2, 'the code task (and its mission) wait for review');
      assert.equal(tasks.find((t) => !t.parentId)?.status, 'in_review', 'the mission settles with its children');
      assert.equal(shown.done, 1, 'the research task is done');

      // Cost: every run of the team has its reported cost; the two children overlapped.
      const { runs } = await get('/api/runs?limit=200');
      const teamRuns = runs.filter((r) => r.teamId === teamId);
      const turns = teamRuns.filter((r) => !r.taskId);
      const childRuns = teamRuns.filter((r) => r.taskId);
      assert.equal(turns.length, 2, `two leader turns: ${JSON.stringify(turns.map((r) => [r.id, r.status]))}`);
      assert.deepEqual(childRuns.map((r) => r.taskId).sort(), [code.id, research.id].sort());
      for (const r of teamRuns) {
        assert.equal(r.status, 'succeeded', `run ${r.id}: ${r.status} ${r.error}`);
        assert.ok(r.costUsd > 0 && r.costKind === 'reported', `run ${r.id} costs ${r.costUsd} (${r.costKind})`);
      }
      const [a, b] = childRuns;
      assert.ok(a.startedAt < b.endedAt && b.startedAt < a.endedAt, `the children ran at once: ${JSON.stringify(childRuns.map((r) => [r.startedAt, r.endedAt]))}`);
      const total = teamRuns.reduce((s, r) => s + r.costUsd, 0);
      const mission = await get(`/api/teams/${encodeURIComponent(teamId)}/mission`);
      assert.ok(Math.abs(mission.costTodayUsd - total) < 1e-9, `mission control's cost today ${mission.costTodayUsd}, the runs' sum ${total}`);
      assert.ok(mission.costTodayUsd > 0);
      await waitText(page, 'mission-cost', /\$0\.0*[1-9]\d* spent by the team/);

      // The code task on the board: its diff adds NOTES.md.
      await page.evaluate((id) => (location.hash = `#/board/${encodeURIComponent(id)}`), code.id);
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${code.id}"]`);
      await waitText(page, 'task-diff-file', /^NOTES\.md$/);
      assert.equal(await page.getByTestId('task-diff').getAttribute('data-changed'), 'true');
      assert.match(await page.getByTestId('task-diff-text').textContent(), /\+notes/);
      assert.deepEqual(unexpected(problems, TEAM_PATH_REFUSALS), []);
      console.log(`# welcome → follow-up → diff took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } catch (err) {
      err.message += `\n--- fake chat requests: ${chat.requests.length}, pending ${JSON.stringify(chat.pending())}\n--- server stderr (tail):\n${world.server.stderr().slice(-3000)}`;
      throw err;
    } finally {
      await context.close();
      await world.close();
    }
  });

  test('Skip on the welcome goes to the board and the welcome does not come back', async () => {
    const srv = await startServer({ welcome: true });
    const { page, context } = await openPage(browser, srv.url);
    try {
      await page.getByTestId('welcome').waitFor();
      await page.getByTestId('welcome-skip').click();
      await page.waitForFunction(() => location.hash === '#/board');
      assert.equal((await apiOk(srv, 'GET', '/api/onboarding/state')).needed, false);
      await page.goto(srv.url);
      await page.waitForSelector('body[data-ready="1"][data-onboarding="checked"]');
      assert.notEqual(await page.evaluate(() => location.hash), '#/welcome');
    } finally {
      await context.close();
      await srv.stop();
    }
  });
});
