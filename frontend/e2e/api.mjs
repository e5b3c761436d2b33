// One JSON request to a test server's API, the two ways the browser suites
// need it: apiOk fails the test unless the answer is 2xx and returns the
// decoded body (null for 204); apiAnswer returns {status, json} whatever
// the status, for tests that check refusals.

import assert from 'node:assert/strict';

async function send(server, method, path, body) {
  const init = { method, headers: { 'Content-Type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${server.url}${path}`, init);
  const text = await res.text();
  return { res, text };
}

export async function apiOk(server, method, path, body) {
  const { res, text } = await send(server, method, path, body);
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export async function apiAnswer(server, method, path, body) {
  const { res, text } = await send(server, method, path, body);
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** A code task on repo whose mock run wrote with `writes` and ended in review. */
export async function reviewedTask(server, repo, title, writes) {
  const { task } = await apiOk(server, 'POST', '/api/board', { title, repoPath: repo });
  const run = await apiOk(server, 'POST', '/api/runtimes/clawboo-mock/run', { taskId: task.id, message: writes, wait: true });
  assert.equal(run.task.status, 'in_review');
  return task;
}
