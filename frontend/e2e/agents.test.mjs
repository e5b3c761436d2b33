// Browser tests of the Agents page against a real `clawboo serve` with the
// mock runtime: a native agent created without a provider key says so and
// links to Runtimes; a mock agent chats 1:1 and its reply streams in; a
// board run can be given an agent.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/agents.test.mjs)

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';
import { apiOk } from './api.mjs';
import { waitTestId as waitText } from './checks.mjs';

requireBin();

let server;
let browser;
let home;

before(async () => {
  // No provider key or base URL from the runner's environment, a fresh HOME
  // (no OpenClaw .env) and the file vault: no provider is connected.
  home = await mkdtemp(join(tmpdir(), 'clawboo-agents-home-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/(_API_KEY|_BASE_URL|_AUTH_TOKEN)$/.test(k)));
  server = await startServer({ env: { ...env, HOME: home, CLAWBOO_VAULT: 'file' } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const api = (method, path, body) => apiOk(server, method, path, body);

const row = (page, id) => page.locator(`[data-testid="agent-row"][data-agent-id="${id}"]`);

/** The id of the agent the page shows (from #/agents/<id>). */
async function shownAgentId(page) {
  await page.waitForFunction(() => /^#\/agents\/[a-z0-9-]+$/.test(location.hash));
  return page.evaluate(() => decodeURIComponent(location.hash.slice('#/agents/'.length)));
}

/** Clicks Save and waits for the dialog to close; fails with the errors it shows instead. */
async function save(page) {
  await page.getByTestId('agent-save').click();
  try {
    await page.getByTestId('agent-dialog').waitFor({ state: 'hidden', timeout: 10_000 });
  } catch (err) {
    const shown = await page.getByTestId('agent-error').textContent({ timeout: 200 }).catch(() => null);
    assert.fail(`the dialog stayed open (${err.message.split('\n')[0]}); it says ${JSON.stringify(shown)}`);
  }
}

/** Console errors other than the refusals a test provoked on purpose. */
const unexpected = (problems) => problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|409)/.test(p));

describe('agents', { timeout: 60_000 }, () => {
  test('a native agent created without a key shows the not-ready badge and links to Runtimes', async () => {
    const { page, context, problems } = await openPage(browser, server.url);
    try {
      await page.getByTestId('nav-agents').click();
      await page.getByTestId('agents-empty').waitFor();
      await page.getByTestId('new-agent').click();
      const dialog = page.getByTestId('agent-dialog');
      await dialog.waitFor();
      await page.waitForSelector('[data-testid="agent-runtime"] option[value="clawboo-native"]', { state: 'attached' });
      assert.equal(await page.getByTestId('agent-runtime').inputValue(), 'clawboo-native', 'native is the default runtime');
      assert.equal(await page.getByTestId('agent-provider').inputValue(), 'anthropic');
      assert.equal(await page.getByTestId('agent-model').inputValue(), 'claude-haiku-4-5');
      assert.equal(await page.locator('[data-testid="agent-provider"] option').count(), 11, 'the eleven providers');
      assert.equal(
        await page.locator('[data-testid="agent-provider"] option[value="anthropic"]').getAttribute('data-connected'),
        'false',
      );
      await page.getByTestId('agent-provider-note').waitFor();

      // The model follows the provider unless typed.
      await page.getByTestId('agent-provider').selectOption('openai');
      assert.equal(await page.getByTestId('agent-model').inputValue(), 'gpt-4o-mini');
      await page.getByTestId('agent-provider').selectOption('anthropic');
      assert.equal(await page.getByTestId('agent-model').inputValue(), 'claude-haiku-4-5');

      // Fallbacks: add two, remove one.
      await page.getByTestId('agent-fallback-add').click();
      await page.getByTestId('agent-fallback-add').click();
      assert.equal(await page.getByTestId('agent-fallback').count(), 2);
      await page.getByTestId('agent-fallback-remove').nth(1).click();
      assert.equal(await page.getByTestId('agent-fallback').count(), 1);
      await page.getByTestId('agent-fallback-provider').selectOption('ollama');
      assert.equal(await page.getByTestId('agent-fallback-model').inputValue(), 'llama3.2');

      // A check the form makes itself, then one only the backend makes: its words are shown.
      await page.getByTestId('agent-save').click();
      await waitText(page, 'agent-error', /Give the agent a name/);
      await page.getByTestId('agent-name').fill('Native Helper');
      await page.getByTestId('agent-system-prompt').fill('x'.repeat(33_000));
      await page.getByTestId('agent-save').click();
      await waitText(page, 'agent-error', /systemPrompt is over/);

      await page.getByTestId('agent-system-prompt').fill('You review pull requests.');
      await page.getByTestId('agent-tool-tasks').selectOption('full');
      // The shell switch asks first, in the seed's words; cancelling leaves it off.
      const shellSwitch = page.getByTestId('agent-shell-switch');
      const confirm = page.getByTestId('shell-confirm');
      assert.match(await dialog.textContent(), /Let this agent ask to run commands/);
      assert.match(
        await dialog.textContent(),
        /You are asked before every command\. Nothing is remembered, so a command you allowed once will ask again the next time\./,
      );
      await shellSwitch.click();
      await confirm.waitFor();
      assert.equal(await confirm.getByRole('heading').textContent(), 'Let this agent ask to run commands?');
      assert.match(
        await confirm.textContent(),
        /It will be able to propose running programs on this computer\. You are asked to approve every command before it runs, and nothing is remembered, so you will see each one\./,
      );
      assert.equal((await page.getByTestId('shell-confirm-allow').textContent()).trim(), 'Allow it to ask');
      await page.getByTestId('shell-confirm-cancel').click();
      await confirm.waitFor({ state: 'hidden' });
      assert.equal(await shellSwitch.isChecked(), false);
      assert.equal(await page.getByTestId('shell-note').count(), 0);
      await shellSwitch.click();
      await page.getByTestId('shell-confirm-allow').click();
      await confirm.waitFor({ state: 'hidden' });
      assert.equal(await shellSwitch.isChecked(), true);
      assert.equal(
        await page.getByTestId('shell-note').textContent(),
        'Commands run in this agent\u2019s working folder, as you, with access to the network. One program at a time: it cannot use pipes, redirects, or a shell.',
      );
      await page.getByTestId('agent-max-turns').fill('24');
      await page.getByTestId('agent-budget').fill('1.5');
      await save(page);

      const id = await shownAgentId(page);
      const r = row(page, id);
      await r.waitFor();
      assert.equal(await r.getAttribute('data-ready'), 'false');
      await waitText(page, 'agent-provider-badge', /Anthropic key isn't connected/, 5_000, r);
      assert.equal(await r.getByTestId('agent-connect-link').getAttribute('href'), '#/runtimes');
      assert.equal(await r.getByTestId('agent-runtime-name').textContent(), 'Clawboo Native', 'the runtime by its name, not its id');
      assert.match(await r.textContent(), /anthropic \/ claude-haiku-4-5/);
      await page.getByTestId('agent-detail-badge').waitFor();

      const { agent } = await api('GET', `/api/agents/${id}`);
      assert.equal(agent.providerReady, false);
      assert.equal(agent.budgetUsd, 1.5);
      assert.equal(agent.config.systemPrompt, 'You review pull requests.');
      assert.equal(agent.config.tools.tasks, true);
      assert.equal(agent.config.tools.shell, true);
      assert.equal(agent.config.maxTurns, 24);
      assert.deepEqual(agent.config.fallbacks, [{ provider: 'ollama', model: 'llama3.2' }]);

      // Edit: the form comes back as saved; clearing the budget removes it.
      await page.getByTestId('agent-edit').click();
      await dialog.waitFor();
      assert.equal(await page.getByTestId('agent-name').inputValue(), 'Native Helper');
      assert.equal(await page.getByTestId('agent-tool-tasks').inputValue(), 'full');
      assert.equal(await page.getByTestId('agent-budget').inputValue(), '1.5');
      assert.ok(await page.getByTestId('agent-runtime').isDisabled(), 'the runtime cannot change');
      await page.getByTestId('agent-budget').fill('');
      await page.getByTestId('agent-name').fill('Native Reviewer');
      await save(page);
      await waitText(page, 'agent-title', /^Native Reviewer$/);
      assert.equal((await api('GET', `/api/agents/${id}`)).agent.budgetUsd, null);

      // The link goes to the Runtimes page.
      await r.getByTestId('agent-connect-link').click();
      await page.getByTestId('vault-status').waitFor();

      // Connecting the key (here through the API) clears the badge live.
      await page.goto(`${server.url}/#/agents/${id}`);
      await row(page, id).waitFor();
      await api('POST', '/api/runtimes/clawboo-native/connect', { provider: 'anthropic', apiKey: `sk-ant-api03-${'a'.repeat(48)}` });
      await page.waitForSelector(`[data-testid="agent-row"][data-agent-id="${id}"][data-ready="true"]`, { timeout: 10_000 });
      assert.equal(await row(page, id).getByTestId('agent-provider-badge').count(), 0);
      assert.equal(await page.getByTestId('agent-detail-badge').count(), 0);
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });

  test('a mock agent chats: the reply streams in, the run is listed, a board run can take the agent, and it deletes', async () => {
    const { page, context, problems } = await openPage(browser, `${server.url}/#/agents`);
    try {
      await page.getByTestId('new-agent').click();
      const dialog = page.getByTestId('agent-dialog');
      await dialog.waitFor();
      await page.waitForSelector('[data-testid="agent-runtime"] option[value="clawboo-mock"]', { state: 'attached' });
      await page.getByTestId('agent-name').fill('Mock Buddy');
      await page.getByTestId('agent-runtime').selectOption('clawboo-mock');
      assert.equal(await page.getByTestId('agent-system-prompt').count(), 0, 'no native config for another runtime');
      await save(page);
      const id = await shownAgentId(page);
      await row(page, id).waitFor();
      assert.equal(await row(page, id).getByTestId('agent-runtime-name').textContent(), 'Mock (fault injection)');

      await page.getByTestId('agent-chat-input').fill('!ok hello\n!silent 1500\n!ok there');
      await page.getByTestId('agent-chat-send').click();
      const stream = page.getByTestId('agent-chat-stream');
      // Live: the first words are in while the run still runs.
      await page
        .waitForFunction(
          () => {
            const s = document.querySelector('[data-testid="agent-chat-stream"]');
            return (
              s?.querySelector('[data-testid="run-output"]')?.textContent === 'hello' &&
              s.querySelector('[data-testid="run-status"]')?.textContent === 'running'
            );
          },
          undefined,
          { timeout: 5_000, polling: 'raf' },
        )
        .catch(async (err) => {
          const seen = await page.evaluate(() => ({
            stream: document.querySelector('[data-testid="agent-chat-stream"]')?.textContent?.slice(0, 400) ?? null,
            error: document.querySelector('[data-testid="agent-chat-error"]')?.textContent ?? null,
          }));
          assert.fail(`${err.message}; the page showed ${JSON.stringify(seen)}`);
        });
      await waitText(page, 'run-status', /^succeeded$/, 10_000, stream);
      assert.equal(await stream.getByTestId('run-output').textContent(), 'hellothere');
      assert.equal(await page.getByTestId('agent-chat-input').inputValue(), '', 'the box is cleared once sent');
      const runId = await stream.getAttribute('data-run-id');
      await page.locator(`[data-testid="agent-run-row"][data-run-id="${runId}"]`).waitFor();
      const run = await api('GET', `/api/runs/${runId}`);
      assert.equal(run.agentId ?? run.run?.agentId, id);

      // A second turn streams under the same agent; both are listed.
      await page.getByTestId('agent-chat-input').fill('!ok again');
      await page.getByTestId('agent-chat-send').click();
      await page.waitForFunction((first) => {
        const s = document.querySelector('[data-testid="agent-chat-stream"]');
        return s && s.getAttribute('data-run-id') !== first && s.querySelector('[data-testid="run-output"]')?.textContent === 'again';
      }, runId);
      assert.equal(await page.getByTestId('agent-run-row').count(), 2);

      // The board's run panel offers the agent, and the run carries it.
      const { task } = await api('POST', '/api/board', { title: 'Agent task', kind: 'research' });
      await page.goto(`${server.url}/#/board/${task.id}`);
      await page.waitForSelector(`[data-testid="task-drawer"][data-task-id="${task.id}"]`);
      // The agent is chosen from a searchable list (a combobox).
      await page.getByTestId('task-run-agent').click();
      await page.locator(`[data-testid="task-run-agent-option"][data-agent-id="${id}"]`).click();
      assert.equal(await page.getByTestId('task-run-runtime').inputValue(), 'clawboo-mock', 'the agent picks its runtime');
      await page.getByTestId('task-run-message').fill('!ok via the agent');
      await page.getByTestId('task-run-start').click();
      const taskStream = page.getByTestId('task-run-stream');
      await waitText(page, 'run-status', /^succeeded$/, 10_000, taskStream);
      const taskRunId = await taskStream.getAttribute('data-run-id');
      const taskRun = await api('GET', `/api/runs/${taskRunId}`);
      assert.equal(taskRun.agentId ?? taskRun.run?.agentId, id);

      // Delete, confirmed.
      await page.goto(`${server.url}/#/agents/${id}`);
      await row(page, id).waitFor();
      await page.getByTestId('agent-delete').click();
      await page.getByTestId('agent-delete-confirm').click();
      await row(page, id).waitFor({ state: 'detached' });
      assert.equal(await page.evaluate(() => location.hash), '#/agents');

      // The default provider for new native agents is recorded and starts the form.
      await page.getByTestId('agent-default-provider').selectOption('google');
      const deadline = Date.now() + 5_000;
      while ((await api('GET', '/api/settings/default-native-provider')).provider !== 'google') {
        assert.ok(Date.now() < deadline, 'the default provider was never recorded');
        await page.waitForTimeout(50);
      }
      await page.getByTestId('new-agent').click();
      await page.getByTestId('agent-dialog').waitFor();
      assert.equal(await page.getByTestId('agent-provider').inputValue(), 'google');
      assert.equal(await page.getByTestId('agent-model').inputValue(), 'gemini-2.0-flash');
      await page.getByTestId('agent-cancel').click();
      await page.getByTestId('agent-dialog').waitFor({ state: 'hidden' });
      await page.getByTestId('agent-default-provider').selectOption('');
      assert.deepEqual(unexpected(problems), []);
    } finally {
      await context.close();
    }
  });
});
