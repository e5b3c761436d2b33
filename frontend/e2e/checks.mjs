// Checks the browser suites share: axe's serious and critical violations,
// and waiting for a locator's text.

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

/** Waits until the text of `locator` matches re; fails with what it shows. */
export async function waitText(page, locator, re, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = (await locator.textContent({ timeout: 200 }).catch(() => null)) ?? '';
    if (re.test(last)) return last;
    await page.waitForTimeout(25);
  }
  assert.fail(`never matched ${re} (last: ${JSON.stringify(last)})`);
}
