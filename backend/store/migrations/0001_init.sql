-- 0001: the first schema. Later issues add tables in new files; a shipped
-- migration is never edited.

CREATE TABLE agents (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  runtime     TEXT NOT NULL,
  model       TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);

-- The runs ledger: one row per run of any runtime.
CREATE TABLE runs (
  id            TEXT PRIMARY KEY,
  runtime_id    TEXT NOT NULL,
  agent_id      TEXT REFERENCES agents(id) ON DELETE SET NULL,
  title         TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL CHECK (status IN ('starting','running','succeeded','failed','aborted','timed_out')),
  done_reason   TEXT CHECK (done_reason IN ('success','max_turns','aborted','error')),
  summary       TEXT NOT NULL DEFAULT '',
  error         TEXT NOT NULL DEFAULT '',
  cost_usd      REAL,
  cost_kind     TEXT CHECK (cost_kind IN ('reported','local','token-estimate','char-estimate')),
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  last_seq      INTEGER NOT NULL DEFAULT 0,
  session       TEXT,
  created_at    INTEGER NOT NULL,
  started_at    INTEGER,
  ended_at      INTEGER
);
CREATE INDEX runs_live ON runs(status) WHERE status IN ('starting','running');
CREATE INDEX runs_agent ON runs(agent_id, id);

-- Every event a run emitted, in order. seq is the Emitter's sequence number.
CREATE TABLE run_events (
  run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  kind    TEXT NOT NULL,
  data    TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE settings (
  key         TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL
);
