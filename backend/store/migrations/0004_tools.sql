-- 0004: the approvals queue and the Tools MCP (clawboo-tools): its audit
-- trail, its notes, and the external MCP servers a person added.
-- No secret is stored here: arguments are scrubbed before they are written,
-- and an external server's configuration holds the *names* of environment
-- variables and ${NAME} references, never their values.

-- A question put to a person: may this tool call or command run?
CREATE TABLE approvals (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('tool','command')),
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
  note         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX approvals_pending ON approvals(created_at) WHERE status = 'pending';

-- One row per tools/call on clawboo-tools, whatever its outcome.
CREATE TABLE tool_audit (
  id           INTEGER PRIMARY KEY,
  at           INTEGER NOT NULL,
  tool         TEXT NOT NULL,
  source       TEXT NOT NULL DEFAULT 'builtin',
  risk         TEXT NOT NULL DEFAULT '',
  agent_id     TEXT NOT NULL DEFAULT '',
  team_id      TEXT NOT NULL DEFAULT '',
  transport    TEXT NOT NULL DEFAULT '',
  decision     TEXT NOT NULL CHECK (decision IN ('allowed','denied','expired','error')),
  summary      TEXT NOT NULL DEFAULT '',  -- arguments, scrubbed and cut
  detail       TEXT NOT NULL DEFAULT '',  -- why it was refused or failed, scrubbed
  approval_id  TEXT,
  duration_ms  INTEGER NOT NULL DEFAULT 0
);

-- What agents wrote with the note tool (scrubbed).
CREATE TABLE tool_notes (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL DEFAULT '',
  team_id     TEXT NOT NULL DEFAULT '',
  note        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX tool_notes_created ON tool_notes(created_at);

-- External MCP servers whose tools the broker exposes as <name>__<tool>.
CREATE TABLE tool_servers (
  name         TEXT PRIMARY KEY,
  transport    TEXT NOT NULL CHECK (transport IN ('stdio','http')),
  command      TEXT NOT NULL DEFAULT '',
  args         TEXT NOT NULL DEFAULT '[]',  -- JSON array of strings
  env          TEXT NOT NULL DEFAULT '[]',  -- JSON array of variable names
  url          TEXT NOT NULL DEFAULT '',
  headers      TEXT NOT NULL DEFAULT '{}',  -- JSON object; values may hold ${NAME}
  risk         TEXT NOT NULL DEFAULT 'medium' CHECK (risk IN ('low','medium','high')),
  timeout_ms   INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
