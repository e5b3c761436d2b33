// The phone's figures (issue 30), for `make bench`: how long an approval
// takes from being asked to showing on the paired phone's page (its stream
// over the TLS LAN listener on 127.0.0.2) beside the computer's own
// Approvals page in the same run (floor: the phone ≤ 1.2× the desktop),
// and what the server costs idle with one paired phone's page open
// (floor: ≤ 1 % of a core). Both pages are real Chromium pages; the time is
// each page's own clock when the request's card is drawn, from the moment
// the test asked the mock runtime for the run that asks.
//
//   make build-headless && \
//     (cd frontend && CLAWBOO_BIN=$PWD/../build/bin/clawboo-headless node e2e/phone-bench.mjs)

import { readFileSync } from 'node:fs';
import { launchBrowser, openPage, requireBin, startServer } from './harness.mjs';

requireBin();
const ROUNDS = Number(process.env.PHONE_BENCH_ROUNDS || 30);
const IDLE_MS = Number(process.env.PHONE_BENCH_IDLE_MS || 20_000);

const server = await startServer({});
const browser = await launchBrowser();

async function api(method, path, body) {
  const res = await fetch(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Records, in the page, when each card matching sel appears: its data attribute → performance.timeOrigin + now(). */
const watch = (page, sel, attr) =>
  page.evaluate(
    ([s, a]) => {
      globalThis.__seen = {};
      new MutationObserver(() => {
        const t = performance.timeOrigin + performance.now();
        for (const el of document.querySelectorAll(s)) {
          const id = el.getAttribute(a);
          if (id && !(id in globalThis.__seen)) globalThis.__seen[id] = t;
        }
      }).observe(document.body, { childList: true, subtree: true });
    },
    [sel, attr],
  );

const seen = (page, id) => page.evaluate((i) => globalThis.__seen[i] ?? null, id);

async function until(fn, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} never happened`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The server's CPU time (user + system) in ms, from /proc. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks at USER_HZ 100
}

try {
  const desktop = await openPage(browser, `${server.url}/#/approvals`, { viewport: { width: 1280, height: 800 } });
  await desktop.page.getByTestId('approvals-view').waitFor();
  const { url } = await api('POST', '/api/devices/pairing', { address: '127.0.0.2' });
  const ctx = await browser.newContextWithoutLogin({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, ignoreHTTPSErrors: true });
  const phone = await ctx.newPage();
  await phone.goto(url);
  await phone.getByTestId('pair-submit').tap();
  await phone.waitForSelector('[data-testid="phone-connection"]:has-text("Live")');
  await watch(desktop.page, '[data-testid="approval-card"]', 'data-approval-id');
  await watch(phone, '[data-testid="phone-approval"]', 'data-approval-id');

  const d = [];
  const p = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = Date.now();
    const { runId } = await api('POST', '/api/runtimes/clawboo-mock/run', { message: `!ask make round-${i}`, wait: false });
    const pending = await until(async () => (await api('GET', '/api/approvals')).approvals.find((a) => a.runId === runId), 'the request');
    const td = await until(() => seen(desktop.page, pending.id), 'the desktop card');
    const tp = await until(() => seen(phone, pending.id), 'the phone card');
    d.push(td - t0);
    p.push(tp - t0);
    await api('POST', `/api/approvals/${pending.id}/resolve`, { decision: 'deny' });
    await until(async () => (await api('GET', `/api/runs/${runId}`)).endedAt, 'the run to end');
  }
  const md = median(d);
  const mp = median(p);
  console.log(`BenchmarkPhoneApprovalShown  rounds ${ROUNDS}  phone median ${mp.toFixed(1)} ms (p90 ${[...p].sort((a, b) => a - b)[Math.floor(ROUNDS * 0.9)].toFixed(1)})  desktop page median ${md.toFixed(1)} ms  ratio ${(mp / md).toFixed(2)}×  (floor ≤ 1.20×: ${mp / md <= 1.2 ? 'met' : 'NOT met'})`);

  // Idle: the phone's page open and live, nothing happening; the desktop page closed so only the phone's stream is open.
  await desktop.context.close();
  await new Promise((r) => setTimeout(r, 1000));
  const c0 = cpuMs(server.pid);
  const w0 = Date.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const pct = ((cpuMs(server.pid) - c0) / (Date.now() - w0)) * 100;
  console.log(`BenchmarkPhoneIdle  ${IDLE_MS / 1000} s with one paired phone's page live: server CPU ${pct.toFixed(2)} % of a core  (floor ≤ 1 %: ${pct <= 1 ? 'met' : 'NOT met'})`);
  await ctx.close();
} finally {
  await browser.close();
  await server.stop();
}
