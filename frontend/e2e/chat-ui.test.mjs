// Browser tests of an agent's 1:1 chat as a newcomer meets it (issue 16):
// the chat is one conversation (the person's and the agent's turns in
// order, tool calls collapsed, turns never glued, earlier turns there after
// a reload), a turn waiting on a tool approval shows the card inline, and
// an error shows once, in words, with the raw detail behind a disclosure.
// The native agent talks to a scripted model (fakechat.mjs).
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node --test e2e/chat-ui.test.mjs)

import assert from 'node:assert/strict';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiOk } from './api.mjs';
import { launchBrowser, openPage, requireBin } from './harness.mjs';
import { text, tools } from './fakechat.mjs';
import { GOOD_KEY, makeWorld } from './world.mjs';

const api = (method, path, body) => apiOk(world, method, path, body);

requireBin();

const SHOTS = process.env.UI_SCREENSHOTS || '';

let world;
let browser;

before(async () => {
  world = await makeWorld();
  browser = await launchBrowser();
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
  await api('POST', '/api/runtimes/clawboo-native/connect', { provider: 'openai', apiKey: GOOD_KEY });
});

after(async () => {
  await browser?.close();
  await world?.close();
});

/** Sends by the one rule of every composer: Enter sends (the message's own line breaks are filled in). */
async function send(page, message) {
  await page.getByTestId('agent-chat-input').fill(message);
  await page.getByTestId('agent-chat-input').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="agent-chat-input"]')?.value === '', null, { timeout: 5_000 });
}

/** The transcript as [who, text] pairs, in page order. */
const transcript = (page) =>
  page.$$eval('[data-chat-turn]', (turns) =>
    turns.flatMap((t) => [
      ['you', t.querySelector('[data-testid="chat-user"] p')?.textContent ?? ''],
      ['agent', t.querySelector('[data-testid="chat-agent"] [data-testid="run-output"]')?.textContent ?? ''],
    ]),
  );

async function waitTurns(page, n, lastText, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  let last = [];
  while (Date.now() < deadline) {
    last = await transcript(page);
    if (last.length === 2 * n && last[last.length - 1][1] === lastText) return last;
    await page.waitForTimeout(50);
  }
  assert.fail(`the transcript never had ${n} turns ending ${JSON.stringify(lastText)}: ${JSON.stringify(last)}`);
}

describe('agent chat', () => {
  test('Enter sends and Shift+Enter is a new line, as the placeholder says', async () => {
    const { agent } = await api('POST', '/api/agents', { name: 'Mock Keys', runtime: 'clawboo-mock' });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/agents/${agent.id}`, { viewport: { width: 1280, height: 800 } });
    try {
      const box = page.getByTestId('agent-chat-input');
      await box.waitFor();
      assert.match(await box.getAttribute('placeholder'), /Enter sends, Shift\+Enter for a new line/);
      await box.focus();
      await page.keyboard.type('first line');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('!ok typed');
      assert.equal(await box.inputValue(), 'first line\n!ok typed', 'Shift+Enter made a new line and sent nothing');
      await page.keyboard.press('Enter');
      assert.deepEqual(await waitTurns(page, 1, 'typed'), [
        ['you', 'first line\n!ok typed'],
        ['agent', 'typed'],
      ]);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('the chat is one conversation: turns in order, tool calls collapsed, still there after a reload', async () => {
    const { agent } = await api('POST', '/api/agents', { name: 'Mock Pal', runtime: 'clawboo-mock' });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/agents/${agent.id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('agent-chat-input').waitFor();
      await send(page, 'hello one\n!ok answer one');
      await waitTurns(page, 1, 'answer one');
      await send(page, 'hello two\n!ok answer two');
      await waitTurns(page, 2, 'answer two');
      await send(page, 'hello three\n!loop 2\n!ok answer three');
      const want = [
        ['you', 'hello one\n!ok answer one'],
        ['agent', 'answer one'],
        ['you', 'hello two\n!ok answer two'],
        ['agent', 'answer two'],
        ['you', 'hello three\n!loop 2\n!ok answer three'],
        ['agent', 'answer three'],
      ];
      assert.deepEqual(await waitTurns(page, 3, 'answer three'), want);
      // Tool calls are collapsed under their turn.
      const toolsBox = page.locator('[data-chat-turn]').nth(2).getByTestId('chat-tools');
      assert.match(await toolsBox.locator(':scope > summary').textContent(), /2 tool calls/);
      assert.equal(await toolsBox.evaluate((d) => d.open), false);
      assert.equal(await page.locator('[data-chat-turn]').nth(0).getByTestId('chat-tools').count(), 0);
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'chat-1280.png') });
      // Earlier turns come back from the backend.
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      assert.deepEqual(await waitTurns(page, 3, 'answer three'), want);
      if (SHOTS) {
        await page.setViewportSize({ width: 800, height: 600 });
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(SHOTS, 'chat-800.png') });
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test("the person's whole message is shown, line breaks kept, after a reload too; a long one behind Show all", async () => {
    const { agent } = await api('POST', '/api/agents', { name: 'Mock Long', runtime: 'clawboo-mock' });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/agents/${agent.id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('agent-chat-input').waitFor();
      const multi = 'Please look at these:\n\n- the first point\n- the second point, which goes on for a while so it is longer\n\n!ok noted';
      await send(page, multi);
      await waitTurns(page, 1, 'noted');
      const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1} of a long paste`);
      const long = `${lines.join('\n')}\n!ok long one`;
      await send(page, long);
      await waitTurns(page, 2, 'long one');
      await page.reload();
      await page.waitForSelector('body[data-ready="1"]');
      const turns = await waitTurns(page, 2, 'long one');
      assert.equal(turns[0][1], multi);
      assert.equal(turns[2][1], long);
      const said = page.locator('[data-chat-turn]').nth(0).getByTestId('chat-user-text');
      // Line breaks are kept on screen: five lines tall, not one.
      const box = await said.boundingBox();
      const lh = await said.evaluate((p) => parseFloat(getComputedStyle(p).lineHeight));
      assert.ok(box.height >= 4.5 * lh, `the message is ${box.height}px tall (line ${lh}px)`);
      assert.equal(await page.locator('[data-chat-turn]').nth(0).getByTestId('chat-user-more').count(), 0);
      // The long one is collapsed behind "Show all", and opens whole.
      const longTurn = page.locator('[data-chat-turn]').nth(1);
      const longText = longTurn.getByTestId('chat-user-text');
      const collapsed = (await longText.boundingBox()).height;
      assert.ok(collapsed < 12 * lh, `collapsed to ${collapsed}px`);
      assert.equal(await longTurn.getByTestId('chat-user-more').textContent(), 'Show all');
      if (SHOTS) {
        await longTurn.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, 'chat-collapsed-message-1280.png') });
      }
      await longTurn.getByTestId('chat-user-more').click();
      const open = (await longText.boundingBox()).height;
      assert.ok(open >= 29 * lh, `opened to ${open}px`);
      assert.equal(await longTurn.getByTestId('chat-user-more').getAttribute('aria-expanded'), 'true');
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'chat-whole-message-1280.png') });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a turn waiting on a tool approval shows the card inline, answerable there', async () => {
    const { agent } = await api('POST', '/api/agents', { name: 'Tidy', runtime: 'clawboo-native', provider: 'openai', model: 'gpt-4o-mini' });
    const target = join(world.home, 'scratch-dir');
    await mkdir(target, { recursive: true });
    world.providers.chat.pushWhen(
      'please tidy the scratch folder',
      tools({ id: 'call_del', name: 'delete_path', args: { path: target, why: 'you asked me to tidy it' } }),
      text('Deleted the scratch folder.'),
    );
    const { page, context, problems } = await openPage(browser, `${world.url}/#/agents/${agent.id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('agent-chat-input').waitFor();
      await send(page, 'please tidy the scratch folder');
      const turn = page.getByTestId('agent-chat-stream');
      const card = turn.getByTestId('approval-card');
      await card.waitFor({ timeout: 15_000 }).catch(async () => assert.fail(`no approval card in the chat: ${(await turn.innerText()).slice(0, 500)}`));
      assert.match(await card.locator('h3').innerText(), /scratch-dir/);
      // The request names the turn's run (the native run's session carries it), so no other run shows it.
      const runId = await turn.getAttribute('data-run-id');
      const { approvals } = await api('GET', '/api/approvals');
      assert.deepEqual(
        approvals.filter((a) => a.tool === 'delete_path' && a.agentId === agent.id).map((a) => a.runId),
        [runId],
      );
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'chat-1280-approval.png') });
      await card.getByTestId('approval-allow').click();
      await turn.getByTestId('run-output').filter({ hasText: 'Deleted the scratch folder.' }).waitFor({ timeout: 15_000 });
      await card.waitFor({ state: 'detached' });
      await assert.rejects(stat(target), 'the folder was deleted once allowed');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('an error shows once in the chat, in words, with the raw detail behind a disclosure', async () => {
    // Nothing scripted: the fake model answers 500 with an OpenAI error body,
    // which the native runtime reports as a chain of prefixes.
    const { agent } = await api('POST', '/api/agents', { name: 'Broken', runtime: 'clawboo-native', provider: 'openai', model: 'gpt-4o-mini' });
    const { page, context, problems } = await openPage(browser, `${world.url}/#/agents/${agent.id}`, { viewport: { width: 1280, height: 800 } });
    try {
      await page.getByTestId('agent-chat-input').waitFor();
      await send(page, 'are you there');
      const turn = page.getByTestId('agent-chat-stream');
      await turn.getByTestId('run-error').waitFor({ timeout: 15_000 });
      await page.waitForTimeout(300);
      const shown = (await page.getByTestId('agent-detail').innerText()).replace(/\s+/g, ' ');
      assert.equal(shown.split('nothing scripted for this request').length - 1, 1, `the error is shown once: ${shown}`);
      assert.doesNotMatch(shown, /\{"error"|model provider error: openai: overloaded/, `no raw text on show: ${shown}`);
      assert.match(shown, /The model provider \(openai\) failed with 500: fakechat: nothing scripted/);
      const raw = turn.getByTestId('run-error-raw');
      await raw.locator('summary').click();
      assert.match(await raw.innerText(), /model provider error: openai: overloaded: OpenAI API error: 500/);
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'chat-1280-error.png') });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
