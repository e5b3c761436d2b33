// The Runtimes panel connecting keys, in Chromium against a real `clawboo
// serve` whose provider base URLs point at a fake provider API (see
// world.mjs): native keys are verified before they are stored, Ollama needs
// none, ambient keys read as such and Disconnect overrides them, where keys
// are kept is said above the cards, and the whole connect works by keyboard.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiRuntime, card, openRuntimes, waitState, waitText } from './cards.mjs';
import { launchBrowser, requireBin } from './harness.mjs';
import { GOOD_KEY, makeWorld } from './world.mjs';

requireBin();

let browser;
const worlds = [];

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  for (const w of worlds) await w.close();
});

async function world(opts) {
  const w = await makeWorld(opts);
  worlds.push(w);
  return w;
}

describe('connecting runtimes', { timeout: 60_000 }, () => {
  test('Clawboo Native: a bad key is refused and nothing stored; a good one connects', async () => {
    const w = await world({});
    const { page, context, problems, actions } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'clawboo-native');
      assert.equal(await c.getAttribute('data-state'), 'needs-auth');
      assert.equal(await c.getByTestId('install-button').count(), 0, 'built in: nothing to install');
      const labels = await c.getByTestId('provider-select').locator('option').allTextContents();
      assert.equal(labels.length, 11, `all eleven providers: ${labels}`);
      assert.ok(labels.includes('Ollama (local) — no key needed'), `${labels}`);

      await c.getByTestId('provider-select').selectOption('openrouter');
      const input = c.getByLabel('OPENROUTER_API_KEY');
      await input.fill('sk-or-wrong');
      await c.getByTestId('connect-button').click();
      await waitText(page, 'clawboo-native', 'connect-error', /^\s*Invalid API key\. Nothing was saved\.\s*$/);
      assert.equal(await input.getAttribute('aria-invalid'), 'true');
      assert.deepEqual(actions, ['healthcheck clawboo-native'], 'a refused key never reaches connect');
      assert.deepEqual(
        w.providers.requests.map((r) => [r.provider, r.key]),
        [['openrouter', 'sk-or-wrong']],
      );
      const stored = await apiRuntime(w, 'clawboo-native');
      assert.equal(stored.connectionState, 'needs-auth');
      assert.equal(stored.keys.find((k) => k.id === 'openrouter').connected, false);
      assert.equal(await c.getAttribute('data-state'), 'needs-auth');

      await input.fill(GOOD_KEY);
      await c.getByTestId('connect-button').click();
      await waitState(page, 'clawboo-native', 'ready');
      assert.deepEqual(actions, ['healthcheck clawboo-native', 'healthcheck clawboo-native', 'connect clawboo-native']);
      const key = c.locator('[data-testid="provider-key"][data-provider="openrouter"]');
      assert.equal(await key.getAttribute('data-connected'), 'true');
      assert.match(await key.textContent(), /OpenRouter\s+connected, from the vault/);
      await waitText(page, 'clawboo-native', 'card-health', /Health check: OK/);
      assert.ok(!(await page.content()).includes(GOOD_KEY), 'the key is not on the page once connected');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('Ollama needs no key: its address is a setting, saved only when Ollama answers there', async () => {
    // With OLLAMA_BASE_URL set, the native runtime is connected through Ollama from the start.
    const w = await world({ env: (p) => ({ OLLAMA_BASE_URL: `${p.base}/ollama` }) });
    const { page, context, problems, actions } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'clawboo-native');
      await waitState(page, 'clawboo-native', 'ready');
      const ollama = c.locator('[data-testid="provider-key"][data-provider="ollama"]');
      assert.match(await ollama.textContent(), /Ollama \(local\)\s+connected, from your environment/);

      await c.locator('summary', { hasText: 'Connect another provider' }).click();
      await c.getByTestId('provider-select').selectOption('ollama');
      assert.match(await c.getByTestId('keyless-note').textContent(), /No key needed.*OLLAMA_BASE_URL, when set, wins/s);
      assert.equal(await c.getByTestId('key-input').count(), 0, 'no key field for Ollama');
      await c.getByTestId('connect-button').click();
      await waitText(page, 'clawboo-native', 'connect-success', /Ollama \(local\) at OLLAMA_BASE_URL connected\./);
      // Connect stores nothing (it only lifts a Disconnect): the environment sets it up.
      assert.deepEqual(actions, ['healthcheck clawboo-native', 'connect clawboo-native']);
      assert.deepEqual(w.providers.requests.map((r) => `${r.provider}${r.path}`), ['ollama/api/tags']);
      assert.equal((await (await fetch(`${w.url}/api/settings/ollama-base-url`)).json()).url, null);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }

    // Without OLLAMA_BASE_URL the address is Ollama's default, saved only
    // once Ollama answers there.
    const bare = await world({});
    const second = await openRuntimes(browser, bare);
    let local;
    try {
      const c = card(second.page, 'clawboo-native');
      await c.getByTestId('provider-select').selectOption('ollama');
      await c.getByTestId('connect-button').click();
      await waitText(second.page, 'clawboo-native', 'connect-error', /Ollama does not answer at http:\/\/localhost:11434: .*Nothing was saved\./);
      assert.deepEqual(second.actions, ['healthcheck clawboo-native'], 'an unreachable Ollama is not connected');
      assert.equal((await apiRuntime(bare, 'clawboo-native')).connectionState, 'needs-auth');
      assert.equal((await (await fetch(`${bare.url}/api/settings/ollama-base-url`)).json()).url, null, 'the failed address was put back');

      local = createServer((req, res) => res.end(req.url === '/api/tags' ? '{"models":[]}' : ''));
      await new Promise((resolve, reject) => {
        local.once('error', (err) => reject(new Error(`port 11434 must be free for this test (a real Ollama?): ${err.message}`)));
        local.listen(11434, '127.0.0.1', resolve);
      });
      await c.getByTestId('connect-button').click();
      await waitState(second.page, 'clawboo-native', 'ready');
      const ollama = c.locator('[data-testid="provider-key"][data-provider="ollama"]');
      for (let i = 0; !/Ollama \(local\)\s+connected, at the saved address/.test(await ollama.textContent()); i++) {
        assert.ok(i < 200, `the Ollama row reads: ${await ollama.textContent()}`);
        await second.page.waitForTimeout(25);
      }
      assert.equal((await (await fetch(`${bare.url}/api/settings/ollama-base-url`)).json()).url, 'http://localhost:11434');
      assert.deepEqual(second.problems.filter((p) => !/status of 400/.test(p)), []);
    } finally {
      await second.context.close();
      await new Promise((resolve) => (local ? local.close(resolve) : resolve()));
    }
  });

  test('Disconnect names the teams it stops and no runtime that is not installed; the form then starts on the provider used', async () => {
    const w = await world({});
    const post = async (path, body) => {
      const res = await fetch(`${w.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      assert.ok(res.ok, `POST ${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const { agent } = await post('/api/agents', { name: 'Router Lead', runtime: 'clawboo-native', provider: 'openrouter' });
    await post('/api/teams', { name: 'Docs crew', leaderAgentId: agent.id });
    await post('/api/teams', { name: 'Idle crew' });
    const { page, context, problems } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'clawboo-native');
      await c.getByTestId('provider-select').selectOption('openrouter');
      await c.getByLabel('OPENROUTER_API_KEY').fill(GOOD_KEY);
      await c.getByTestId('connect-button').click();
      await waitState(page, 'clawboo-native', 'ready');

      await c.getByTestId('disconnect-button').click();
      const dialog = page.getByRole('dialog', { name: 'Disconnect Clawboo Native?' });
      await dialog.waitFor();
      await dialog.getByTestId('disconnect-teams').waitFor();
      assert.match(await dialog.getByTestId('disconnect-teams').textContent(), /^\s*The team\s+Docs crew\s+has members on Clawboo Native: their work stops until you connect again\.\s*$/);
      const said = await dialog.textContent();
      assert.doesNotMatch(said, /Idle crew/, 'a team with no member on it does not stop');
      // Hermes reads the same stored OPENROUTER_API_KEY, but it is not installed here.
      assert.doesNotMatch(said, /Hermes|Claude Code/);
      await c.getByTestId('disconnect-confirm').click();
      await waitState(page, 'clawboo-native', 'needs-auth');
      assert.equal(await c.getByTestId('provider-select').inputValue(), 'openrouter', 'the provider stays the one used');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('a key in the environment reads as such, and Disconnect stops it counting', async () => {
    const w = await world({ installed: ['claude'], env: { ANTHROPIC_API_KEY: 'sk-ant-from-env' } });
    const { page, context, problems } = await openRuntimes(browser, w);
    try {
      const c = card(page, 'claude-code');
      await waitState(page, 'claude-code', 'ready');
      await waitText(page, 'claude-code', 'credential-source', /ANTHROPIC_API_KEY\s+from your environment/);

      await c.getByTestId('disconnect-button').click();
      const dialog = page.getByRole('dialog', { name: 'Disconnect Claude Code?' });
      await dialog.waitFor();
      assert.match(
        await dialog.textContent(),
        /Your environment keeps its ANTHROPIC_API_KEY, but Clawboo will\s+ignore it for Claude Code until you connect again\./,
      );
      await c.getByTestId('disconnect-confirm').click();
      await waitState(page, 'claude-code', 'needs-auth');
      // Only Claude Code stopped counting it: the environment still has it.
      const native = await apiRuntime(w, 'clawboo-native');
      assert.equal(native.connectionState, 'ready');
      assert.equal(native.credentialSource, 'env');
      await page.reload();
      await waitState(page, 'claude-code', 'needs-auth');
      // Pasting a key connects again, and the card says the environment's key
      // still comes first.
      await c.getByTestId('key-input').fill('sk-ant-pasted');
      await c.getByTestId('connect-button').click();
      await waitState(page, 'claude-code', 'ready');
      await waitText(page, 'claude-code', 'connect-warning', /ANTHROPIC_API_KEY is also set in Clawboo's environment/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test("a key that appears in OpenClaw's .env connects the card live", async () => {
    const w = await world({ installed: ['claude'] });
    const { page, context, problems, actions } = await openRuntimes(browser, w);
    try {
      await waitState(page, 'claude-code', 'needs-auth');
      await mkdir(join(w.home, '.openclaw'), { recursive: true });
      await writeFile(join(w.home, '.openclaw', '.env'), 'ANTHROPIC_API_KEY=sk-ant-openclaw\n');
      await waitState(page, 'claude-code', 'ready', 15_000);
      await waitText(page, 'claude-code', 'credential-source', /ANTHROPIC_API_KEY\s+from OpenClaw's \.env/);
      assert.deepEqual(actions, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('says where keys are kept', async () => {
    const w = await world({});
    const { page, context, problems } = await openRuntimes(browser, w);
    try {
      const line = page.getByTestId('vault-status');
      assert.match(await line.textContent(), /Keys are kept in an encrypted file in your Clawboo folder\./);
      assert.match(await line.textContent(), /The keychain is switched off \(CLAWBOO_VAULT=file\)/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }

    // The keychain cases cannot be produced here (no keychain), so the
    // listing is rewritten on its way to the page.
    const cases = [
      [{ backend: 'keychain', detail: '', probing: true }, /^\s*Checking the keychain…\s*$/],
      [{ backend: 'keychain', detail: '', probing: false }, /^\s*Keys are kept in your OS keychain\.\s*$/],
      [
        { backend: 'file', detail: 'the keychain did not answer within 3s', probing: false },
        /Keys are kept in an encrypted file in your Clawboo folder\.\s*The keychain did not answer within 3s\./,
      ],
    ];
    for (const [vault, want] of cases) {
      const ctx = await browser.newContext();
      try {
        await ctx.route('**/api/runtimes', async (route) => {
          // A re-read can still be in flight when the context closes below;
          // its route then fails, which is nothing this test checks.
          try {
            const res = await route.fetch();
            await route.fulfill({ response: res, json: { ...(await res.json()), vault } });
          } catch {
            /* the context closed mid-request */
          }
        });
        const p = await ctx.newPage();
        await p.goto(`${w.url}/#/runtimes`);
        await p.getByTestId('vault-status').waitFor();
        assert.match(await p.getByTestId('vault-status').textContent(), want);
      } finally {
        await ctx.close();
      }
    }
  });

  test('connects and disconnects by keyboard alone', async () => {
    const w = await world({ installed: ['claude'] });
    const { page, context, problems } = await openRuntimes(browser, w);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return {
          testid: el?.getAttribute('data-testid') ?? null,
          id: el?.id ?? '',
          card: el?.closest('[data-testid="runtime-card"]')?.getAttribute('data-runtime-id') ?? null,
        };
      });
    try {
      await waitState(page, 'claude-code', 'needs-auth');
      // Tab from the top of the page to Claude Code's key field.
      let f;
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        f = await focused();
        if (f.card === 'claude-code' && f.testid === 'key-input') break;
      }
      assert.deepEqual(f, { ...f, card: 'claude-code', testid: 'key-input' }, 'Tab reaches the key field');
      await page.keyboard.type('sk-ant-keyboard');
      await page.keyboard.press('Tab');
      assert.equal((await focused()).testid, 'key-visibility-toggle');
      await page.keyboard.press('Space');
      const c = card(page, 'claude-code');
      assert.equal(await c.getByTestId('key-input').getAttribute('type'), 'text', 'Space shows the key');
      await page.keyboard.press('Tab');
      assert.equal((await focused()).testid, 'connect-button');
      await page.keyboard.press('Enter');
      await waitState(page, 'claude-code', 'ready');
      // The button that had focus is gone; focus went to the card's title, not to the page.
      await page.waitForFunction(() => document.activeElement?.id === 'rt-claude-code');

      // Disconnect: Escape cancels and focus comes back; Enter on Disconnect confirms.
      for (let i = 0; i < 5 && (await focused()).testid !== 'disconnect-button'; i++) await page.keyboard.press('Tab');
      assert.equal((await focused()).testid, 'disconnect-button');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor();
      assert.equal((await focused()).testid, 'disconnect-cancel', 'the dialog starts on the safe answer');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      assert.equal((await focused()).testid, 'disconnect-button', 'focus returns to Disconnect');
      assert.equal(await c.getAttribute('data-state'), 'ready');

      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Tab');
      assert.equal((await focused()).testid, 'disconnect-confirm');
      await page.keyboard.press('Enter');
      await waitState(page, 'claude-code', 'needs-auth');
      await page.waitForFunction(() => document.activeElement?.id === 'rt-claude-code');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
