-- 0025: every pairing and removal of a phone is in the approvals history
-- (issue 30): a row of kind 'device', written already answered (status
-- 'approved', with who did it in resolved_by), never pending. SQLite cannot
-- alter a CHECK, so the table is rebuilt with its rows and its index. No
-- foreign key, trigger or view names approvals.

CREATE TABLE approvals_0025 (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('tool','command','device')),
  title        TEXT NOT NULL,
  tool         TEXT NOT NULL DEFAULT '',
  command      TEXT NOT NULL DEFAULT '',
  args         TEXT NOT NULL DEFAULT '',  -- scrubbed summary
  folder       TEXT NOT NULL DEFAULT '',
  agent_id     TEXT NOT NULL DEFAULT '',
  team_id      TEXT NOT NULL DEFAULT '',
  task_id      TEXT NOT NULL DEFAULT '',
  run_id       TEXT NOT NULL DEFAULT '',
  reason       TEXT NOT NULL DEFAULT '',  -- the agent's "why"
  risk         TEXT NOT NULL DEFAULT '',
  status       TEXT NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending','approved','denied','expired')),
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  resolved_at  INTEGER,
  resolved_by  TEXT NOT NULL DEFAULT '',
  note         TEXT NOT NULL DEFAULT '',
  always       INTEGER NOT NULL DEFAULT 0,
  scope        TEXT NOT NULL DEFAULT '',
  CHECK (kind != 'device' OR status != 'pending')
);
INSERT INTO approvals_0025(id, kind, title, tool, command, args, folder, agent_id, team_id, task_id, run_id,
    reason, risk, status, created_at, expires_at, resolved_at, resolved_by, note, always, scope)
  SELECT id, kind, title, tool, command, args, folder, agent_id, team_id, task_id, run_id,
    reason, risk, status, created_at, expires_at, resolved_at, resolved_by, note, always, scope FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_0025 RENAME TO approvals;
CREATE INDEX approvals_pending ON approvals(created_at) WHERE status = 'pending';
