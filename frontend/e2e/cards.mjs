// Helpers for reading Runtimes-panel cards in tests, with failures that say
// what the card shows instead.

import assert from 'node:assert/strict';
import { waitText as waitLocatorText } from './checks.mjs';
import { openPage } from './harness.mjs';

/** A runtime's card. */
export const card = (page, id) => page.locator(`[data-testid="runtime-card"][data-runtime-id="${id}"]`);

/** What a card shows, squeezed to one line, for failure messages. */
export async function cardText(page, id) {
  const text = await card(page, id)
    .innerText({ timeout: 1_000 })
    .catch(() => '(no card)');
  return text.replace(/\s+/g, ' ').slice(0, 600);
}

/** Waits until a card is in a state; fails with what it shows. */
export async function waitState(page, id, state, timeout = 10_000) {
  try {
    await page.waitForSelector(`[data-testid="runtime-card"][data-runtime-id="${id}"][data-state="${state}"]`, { timeout });
  } catch {
    const now = await card(page, id).getAttribute('data-state', { timeout: 1_000 }).catch(() => null);
    assert.fail(`${id} never became ${state} (it is ${now}); the card shows: ${await cardText(page, id)}`);
  }
}

/** Waits until a card's element (by test id) contains a text; fails with what it shows. */
export async function waitText(page, id, testid, re, timeout = 10_000) {
  try {
    return await waitLocatorText(page, card(page, id).getByTestId(testid).first(), re, timeout, `${id}'s ${testid}`);
  } catch (err) {
    err.message += `; the card shows: ${await cardText(page, id)}`;
    throw err;
  }
}

/** Opens the Runtimes page of a world and waits for its cards. */
export async function openRuntimes(browser, world, contextOptions) {
  const opened = await openPage(browser, `${world.url}/#/runtimes`, contextOptions);
  await card(opened.page, 'claude-code').waitFor({ timeout: 10_000 });
  // Which runtime actions the page asked for, in order ("connect clawboo-native").
  opened.actions = [];
  opened.page.on('request', (req) => {
    const m = /\/api\/runtimes\/([^/]+)\/(install|connect|disconnect|healthcheck|recheck)$/.exec(new URL(req.url()).pathname);
    if (m && req.method() === 'POST') opened.actions.push(`${m[2]} ${m[1]}`);
  });
  return opened;
}

/** One runtime as the backend lists it now. */
export async function apiRuntime(world, id) {
  const body = await (await fetch(`${world.url}/api/runtimes`)).json();
  return body.runtimes.find((r) => r.id === id);
}
