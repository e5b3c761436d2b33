// Checks the browser suites share: axe's serious and critical violations,
// waiting for a locator's (or a test id's) text or for any condition, and
// screenshots at the two window sizes every page is looked at in.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe's serious and critical violations on the page, as readable lines. */
export async function axeProblems(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Polls fn until it returns a truthy value, and returns it; fails naming what, with the last value seen. */
export async function until(what, fn, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${what} never happened (last: ${JSON.stringify(last)})`);
}

/**
 * Waits until the text of `locator` matches re (polling, never a fixed
 * wait); fails with what it showed, naming `about` when given.
 */
export async function waitText(page, locator, re, timeout = 10_000, about = '') {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = (await locator.textContent({ timeout: 200 }).catch(() => null)) ?? '';
    if (re.test(last)) return last;
    await page.waitForTimeout(25);
  }
  assert.fail(`${about ? `${about} ` : ''}never matched ${re} (last: ${JSON.stringify(last)})`);
}

/** waitText for the first element with data-testid `testid` (within scope). */
export function waitTestId(page, testid, re, timeout = 10_000, scope = page) {
  return waitText(page, scope.getByTestId(testid).first(), re, timeout, testid);
}

/** Resolves after the page has laid out and painted twice (a screenshot's settle, not a timer). */
export const painted = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/**
 * Saves the page at 1280×800 and 800×600 as `<folder>/<name>-<width>.png`
 * (nothing without a folder). `arrange`, when given, runs after each resize
 * (a resize reflows the page: scroll to the part to show there).
 */
export async function shootSizes(page, folder, name, arrange = null) {
  if (!folder) return;
  for (const [width, height] of [
    [1280, 800],
    [800, 600],
  ]) {
    await page.setViewportSize({ width, height });
    if (arrange) await arrange(page);
    await painted(page);
    await page.screenshot({ path: `${folder}/${name}-${width}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The seqs of the posts a team room shows, in page order. */
export const shownSeqs = (page) => page.$$eval('[data-testid="team-post"]', (els) => els.map((e) => Number(e.getAttribute('data-seq'))));
