// The whole core loop as a newcomer lives it (issue 25): from a fresh
// home's welcome, on a real repository that holds a `.clawboo/verify`, to
// the change merged into its base branch. A scripted provider (fakechat.mjs)
// plays the models; everything else is real: `clawboo serve`, the native
// runtime, the worktree, the verify script, git.
//
// What it holds the product to:
//   - a verified change waits in review (done means landed), and the room
//     links the delegation's report to its task, by title and by name;
//   - the person switches the checkout to another branch and leaves an
//     unrelated edit there: the merge still goes into the task's own base
//     (main), never switches the checkout and leaves the edit byte for byte;
//   - main's new commit carries the task's title, the repository's own
//     author, and names the agent that did it;
//   - the room says the change was merged, and the mission settles done.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/firstmerge.test.mjs)

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { until } from './checks.mjs';
import { launchBrowser, openPage, requireBin } from './harness.mjs';
import { text, tools } from './fakechat.mjs';
import { GOOD_KEY, makeWorld } from './world.mjs';

requireBin();

// FIRSTMERGE_SCREENSHOTS=<folder> saves the review (room and drawer) at 1280×800 and 800×600;
// docs/screenshot.png is its 1280×800 picture.
const SHOTS = process.env.FIRSTMERGE_SCREENSHOTS || '';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

// The seeded members' system prompts (backend/api/onboarding.go) route the fake model's scripts.
const LEAD_PROMPT = 'You lead a small software team';
const CODER_PROMPT = 'You are a careful software engineer';
const TITLE = 'Add NOTES.md with one line';

async function call(base, method, path, body) {
  const init = { method, headers: { 'Content-Type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${base}${path}`, init);
  const body2 = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${body2}`);
  return body2 ? JSON.parse(body2) : null;
}


const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|401|404|409|503)/.test(p));

describe('the core loop', { timeout: 180_000 }, () => {
  test('from the welcome to a verified change merged into its base branch, with the room leading to it', async () => {
    const world = await makeWorld({ welcome: true, tools: ['git'] });
    const chat = world.providers.chat;
    const repo = join(world.home, 'project');
    await mkdir(join(repo, '.clawboo'), { recursive: true });
    await writeFile(join(repo, 'README.md'), '# project\n');
    await writeFile(join(repo, '.clawboo', 'verify'), '# the change is good when NOTES.md exists\ntest -f NOTES.md\n');
    const git = (...args) => execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd: repo, stdio: 'pipe' }).toString();
    git('init', '-q', '-b', 'main');
    // The repository's own identity: the merge must be authored by it, not by Clawboo.
    git('config', 'user.name', 'Ada Person');
    git('config', 'user.email', 'ada@example.invalid');
    git('add', '.');
    git('commit', '-q', '-m', 'initial commit');

    const use = (r) => ({ ...r, usage: { input: 1000, output: 100 } });
    // The critic reviews the delegated change after its verify passed (backend/review): it finds
    // nothing. Scripted first, so its prompt is matched before the Coder's system prompt it also holds.
    chat.pushWhen('You are the reviewer of task', use(text('{"findings":[]}')));
    chat.pushWhen(
      LEAD_PROMPT,
      use(tools({ id: 'call_d1', name: 'delegate', args: { assignee: '@Coder', task: TITLE, kind: 'code' } })),
      use(text('I asked Coder for NOTES.md.')),
      use(text('NOTES.md is ready for your review.')),
    );
    chat.pushWhen(CODER_PROMPT, use(tools({ id: 'call_w', name: 'write_file', args: { path: 'NOTES.md', content: 'notes\n' } })), use(text('Added NOTES.md.')));

    const { page, context, problems } = await openPage(browser, world.url, { viewport: { width: 1280, height: 800 } });
    try {
      // 1. The welcome: a provider and its key, the repository picked by browsing.
      await page.getByTestId('welcome').waitFor();
      await page.waitForSelector('[data-testid="welcome-provider"] option[value="openai"]', { state: 'attached' });
      await page.getByTestId('welcome-provider').selectOption('openai');
      await page.getByTestId('welcome-key').fill(GOOD_KEY);
      await page.getByTestId('repo-browse').click();
      await page.locator(`[data-testid="repo-entry"][data-path="${repo}"][data-is-repo="true"]`).waitFor();
      await page.locator(`[data-testid="repo-entry-use"][data-path="${repo}"]`).click();
      await page.getByTestId('welcome-create').click();
      await page.waitForFunction(() => /^#\/teams\/.+/.test(location.hash), null, { timeout: 20_000 });
      const teamId = await page.evaluate(() => decodeURIComponent(location.hash.slice('#/teams/'.length)).split('?')[0]);
      const get = (path) => call(world.url, 'GET', path);

      // 2. The first message, as suggested.
      await page.getByTestId('team-message').waitFor();
      await page.waitForFunction(() => (document.querySelector('[data-testid="team-message"]')?.value ?? '').length > 0);
      await page.getByTestId('team-send').click();

      // 3. The delegation names the member and links to its task by title before it ends.
      const delegation = page.locator('[data-testid="team-post"][data-kind="delegate"]').filter({ hasText: '@Coder' });
      await delegation.waitFor({ timeout: 30_000 });
      const taskLink = delegation.getByTestId('team-post-task');
      await taskLink.waitFor();
      assert.match(await taskLink.textContent(), new RegExp(TITLE));

      // 4. The verify passed, so the change waits in review: done means landed.
      const task = await until('the code task in review', async () => {
        const { tasks } = await get(`/api/board?teamId=${encodeURIComponent(teamId)}`);
        return tasks.find((t) => t.parentId && t.kind === 'code' && t.status === 'in_review');
      });
      assert.equal(task.verification?.passed, true, 'the repository verify ran and passed');
      assert.equal(task.merged, null, 'nothing is merged before the person says so');
      assert.equal(task.baseBranch, 'main', 'the base branch was recorded when the worktree was made');

      // The report-up in the room links to the task and to its diff; no ids where people read.
      const report = page.locator('[data-testid="team-post"]').filter({ hasText: `Report on "${TITLE}"` });
      await report.first().waitFor({ timeout: 30_000 });
      assert.match(await report.first().textContent(), /in review/);
      await report.first().getByTestId('team-post-diff').waitFor();
      // The leader hears of it ([Task Update]) and tells the person it waits for review.
      await page.locator('[data-testid="team-post"]').filter({ hasText: 'NOTES.md is ready for your review.' }).first().waitFor({ timeout: 30_000 });
      const roomText = await page.getByTestId('team-posts').textContent();
      assert.ok(!roomText.includes(task.id), `the room shows the task's id where people read:\n${roomText}`);

      // 5. The person moves on: main gets a commit of theirs (so the merge needs a merge commit),
      // then the checkout switches to another branch with an unfinished edit of theirs.
      await writeFile(join(repo, 'CHANGELOG.md'), '# changes\n');
      git('add', 'CHANGELOG.md');
      git('commit', '-q', '-m', 'a changelog');
      const mainBefore = git('rev-parse', 'main').trim();
      git('checkout', '-q', '-b', 'my-feature');
      await writeFile(join(repo, 'README.md'), '# project\n\nmy own unfinished edit\n');
      const mine = await readFile(join(repo, 'README.md'));

      // 6. From the room to the review: the link opens the task's drawer, which names the base.
      await report.first().getByTestId('team-post-task').click();
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${task.id}"]`);
      // The board behind the drawer is filtered to the team, by its name.
      const { team } = await get(`/api/teams/${encodeURIComponent(teamId)}`);
      await until('the team filter names the team', async () =>
        page.$eval('[data-testid="board-team"]', (el) => el.selectedOptions[0]?.textContent ?? '').then((t) => t === team.name),
      );
      const mergeButton = page.getByTestId('task-merge-button');
      await mergeButton.waitFor();
      await until('the merge button names main', async () => /Merge into main/.test((await mergeButton.textContent()) ?? ''));
      // The diff is there to read before the person merges.
      await page.waitForSelector('[data-testid="task-diff"][data-changed="true"]', { timeout: 20_000 });
      if (SHOTS) {
        // The README's picture, and the drawer at the two sizes a person uses.
        await mkdir(SHOTS, { recursive: true });
        for (const [w, h] of [[1280, 800], [800, 600]]) {
          await page.setViewportSize({ width: w, height: h });
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
          await page.screenshot({ path: join(SHOTS, `review-${w}x${h}.png`) });
        }
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      await mergeButton.click();
      await page.getByTestId('task-merge-result').waitFor({ timeout: 20_000 });

      // The task is done because its work landed.
      const { task: after } = await get(`/api/board/${encodeURIComponent(task.id)}`);
      assert.equal(after.status, 'done');
      assert.equal(after.merged?.base, 'main');

      // The repository: main moved, the checkout stayed on my-feature with the person's edit.
      assert.equal(git('symbolic-ref', '--short', 'HEAD').trim(), 'my-feature', 'the merge never switches the checkout');
      assert.deepEqual(await readFile(join(repo, 'README.md')), mine, "the person's edit is left byte for byte");
      assert.equal(git('show', 'main:NOTES.md'), 'notes\n', 'the change is in main');
      assert.equal(git('rev-parse', 'main').trim(), after.merged.commit, 'merged names the commit main is at');
      assert.throws(() => git('show', 'my-feature:NOTES.md'), 'my-feature did not get the change');
      // The merge commit is the person's (the repository's identity), titled by the task, naming the agent;
      // the work it brings in is titled by the task too, never by an id.
      assert.equal(git('rev-parse', 'main^1').trim(), mainBefore, "the merge commit's first parent is main as the person left it");
      const head = git('log', '-1', '--format=%an <%ae>%n%s%n%b', 'main');
      assert.match(head, /^Ada Person <ada@example\.invalid>\n/, `main's merge commit is the repository's author:\n${head}`);
      assert.match(head, new RegExp(`\\n${TITLE}\\n`), `main's merge commit carries the task's title:\n${head}`);
      assert.match(head, /Clawboo-Agent: Coder \(clawboo-native\)/, `main's merge commit names the agent and runtime:\n${head}`);
      const work = git('log', '-1', '--format=%s%n%b', 'main^2');
      assert.match(work, new RegExp(`^${TITLE}\\n`), `the task's own commit is titled by the task:\n${work}`);
      assert.match(work, /Clawboo-Agent: Coder \(clawboo-native\)/, `the task's own commit names the agent:\n${work}`);
      assert.equal(git('branch', '--list', 'clawboo/*').trim(), '', 'the task branch is gone after landing');

      // 7. The room says so, and the mission settles done.
      await page.evaluate((id) => (location.hash = `#/teams/${encodeURIComponent(id)}`), teamId);
      const merged = page.locator('[data-testid="team-post"]').filter({ hasText: /Merged/ }).filter({ hasText: TITLE });
      await merged.first().waitFor({ timeout: 20_000 });
      if (SHOTS) {
        for (const [w, h] of [[1280, 800], [800, 600]]) {
          await page.setViewportSize({ width: w, height: h });
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
          await page.screenshot({ path: join(SHOTS, `room-${w}x${h}.png`) });
        }
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      await until('the mission settles done', async () => {
        const { tasks } = await get(`/api/board?teamId=${encodeURIComponent(teamId)}`);
        return tasks.find((t) => !t.parentId)?.status === 'done';
      });
      // Every run of the path succeeded: the leader's turns, the Coder's task run and the critic's review.
      const { runs } = await get('/api/runs?limit=200');
      const failed = runs.filter((r) => r.status !== 'succeeded');
      assert.deepEqual(failed.map((r) => [r.title, r.status, r.error]), [], 'no run of the path failed');
      assert.deepEqual(chat.pending(), {}, 'every scripted answer was asked for');
      assert.deepEqual(unexpected(problems), []);
    } catch (err) {
      err.message += `\n--- fake chat requests: ${chat.requests.length}, pending ${JSON.stringify(chat.pending())}\n--- server stderr (tail):\n${world.server.stderr().slice(-3000)}`;
      throw err;
    } finally {
      await context.close();
      await world.close();
    }
  });
});
