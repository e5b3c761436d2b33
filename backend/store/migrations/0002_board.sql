-- 0002: the board (tasks, comments, dependencies, worktrees), the cost
-- ledger and budgets.

ALTER TABLE agents ADD COLUMN team_id TEXT;

CREATE TABLE tasks (
  id                TEXT PRIMARY KEY,
  title             TEXT NOT NULL,
  description       TEXT NOT NULL DEFAULT '',
  status            TEXT NOT NULL DEFAULT 'todo'
                    CHECK (status IN ('backlog','todo','in_progress','in_review','blocked','done','cancelled')),
  priority          INTEGER NOT NULL DEFAULT 0,
  kind              TEXT NOT NULL DEFAULT 'code' CHECK (kind IN ('code','research','review')),
  team_id           TEXT,
  parent_id         TEXT REFERENCES tasks(id) ON DELETE RESTRICT,
  -- The mission: the root of this task's tree (a root task is its own).
  root_id           TEXT NOT NULL,
  depth             INTEGER NOT NULL DEFAULT 0 CHECK (depth BETWEEN 0 AND 2),
  repo_path         TEXT,
  base_ref          TEXT,
  verify_command    TEXT,
  assignee_agent_id TEXT,
  assignee_runtime  TEXT,
  -- The run holding the claim while in_progress, and its last heartbeat.
  run_id            TEXT,
  heartbeat_at      INTEGER,
  -- JSON: the last verification (command, exit code, output tail, passed).
  verification      TEXT,
  -- JSON: a recorded human override of a failed verification.
  override          TEXT,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  completed_at      INTEGER
);
CREATE INDEX tasks_board ON tasks(status, priority DESC, created_at, id);
CREATE INDEX tasks_parent ON tasks(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX tasks_root ON tasks(root_id);
CREATE INDEX tasks_team ON tasks(team_id, status) WHERE team_id IS NOT NULL;

CREATE TABLE task_deps (
  task_id     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  depends_on  TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (task_id, depends_on),
  CHECK (task_id <> depends_on)
) WITHOUT ROWID;
CREATE INDEX task_deps_rev ON task_deps(depends_on);

CREATE TABLE task_comments (
  id          TEXT PRIMARY KEY,
  task_id     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  author_type TEXT NOT NULL CHECK (author_type IN ('user','agent','system')),
  author_id   TEXT,
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX task_comments_task ON task_comments(task_id, created_at);

-- A code task's git worktree (one per task).
CREATE TABLE worktrees (
  task_id     TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
  repo_path   TEXT NOT NULL,
  path        TEXT NOT NULL,
  branch      TEXT NOT NULL,
  base_commit TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('active','paused','archived')),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
) WITHOUT ROWID;

ALTER TABLE runs ADD COLUMN task_id TEXT;
ALTER TABLE runs ADD COLUMN team_id TEXT;
ALTER TABLE runs ADD COLUMN model TEXT;
-- Only task runs pay for this index; ad-hoc runs (task_id NULL) skip it.
CREATE INDEX runs_task ON runs(task_id) WHERE task_id IS NOT NULL;

-- The cost ledger: one row per charge, in nano-USD (1e-9) so per-turn
-- amounts add up without rounding loss.
CREATE TABLE spend (
  id            INTEGER PRIMARY KEY,
  run_id        TEXT NOT NULL,
  at            INTEGER NOT NULL,
  nano          INTEGER NOT NULL CHECK (nano >= 0),
  kind          TEXT NOT NULL CHECK (kind IN ('reported','local','token-estimate','char-estimate')),
  runtime_id    TEXT NOT NULL,
  agent_id      TEXT,
  team_id       TEXT,
  mission_id    TEXT,
  model         TEXT,
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX spend_at ON spend(at);
CREATE INDEX spend_run ON spend(run_id);

-- Budgets per scope. Amounts in nano-USD.
CREATE TABLE budgets (
  scope       TEXT NOT NULL CHECK (scope IN ('agent','mission','team')),
  scope_id    TEXT NOT NULL,
  limit_nano  INTEGER NOT NULL CHECK (limit_nano > 0),
  spent_nano  INTEGER NOT NULL DEFAULT 0 CHECK (spent_nano >= 0),
  mode        TEXT NOT NULL DEFAULT 'warn' CHECK (mode IN ('warn','cap')),
  -- ok; warned (crossed 80 %); exceeded (crossed 100 %, warn mode);
  -- paused (crossed 100 %, cap mode: dispatch refused until resumed).
  status      TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok','warned','exceeded','paused')),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (scope, scope_id)
) WITHOUT ROWID;
