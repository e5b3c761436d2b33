-- 0017: the quota ledger (issue 19). The latest usage window each runtime
-- (and account) reported, the work the governor deferred until a window
-- resets, and quota budgets (at most N % of a window for an agent or team).
-- Nothing here is a secret: accounts are provider or plan names, never keys.

CREATE TABLE quota_windows (
  runtime      TEXT NOT NULL,
  account      TEXT NOT NULL DEFAULT '',
  window       TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('allowed','allowed_warning','rejected')),
  utilization  REAL,                    -- fraction 0..1, NULL when not reported
  resets_at    INTEGER,                 -- unix ms, NULL when not reported
  seen_at      INTEGER NOT NULL,
  source       TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (runtime, account, window)
) WITHOUT ROWID;

CREATE TABLE quota_deferrals (
  id          TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('task','team-turn')),
  -- a task's id, or "<team>:<agent>" for a team turn: one deferral each
  target      TEXT NOT NULL,
  task_id     TEXT NOT NULL DEFAULT '',
  team_id     TEXT NOT NULL DEFAULT '',
  agent_id    TEXT NOT NULL DEFAULT '',
  title       TEXT NOT NULL DEFAULT '',
  runtime     TEXT NOT NULL,
  window      TEXT NOT NULL DEFAULT '',
  until       INTEGER NOT NULL,
  reason      TEXT NOT NULL,
  payload     TEXT NOT NULL DEFAULT '',  -- JSON: the work's message (secrets scrubbed) and its task chain
  created_at  INTEGER NOT NULL,
  UNIQUE (kind, target)
);
CREATE INDEX quota_deferrals_until ON quota_deferrals(until);

CREATE TABLE quota_limits (
  scope        TEXT NOT NULL CHECK (scope IN ('agent','team')),
  scope_id     TEXT NOT NULL,
  runtime      TEXT NOT NULL DEFAULT '',  -- '' = any runtime
  window       TEXT NOT NULL,
  max_percent  REAL NOT NULL CHECK (max_percent > 0 AND max_percent <= 100),
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (scope, scope_id, runtime, window)
) WITHOUT ROWID;

-- Where an agent's (or a team's) work goes when its runtime's window is
-- spent; '' = nowhere (deferred until the reset).
ALTER TABLE agents ADD COLUMN fallback_runtime TEXT NOT NULL DEFAULT '';
ALTER TABLE teams ADD COLUMN fallback_runtime TEXT NOT NULL DEFAULT '';
