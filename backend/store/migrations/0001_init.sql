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

-- The runs ledger: one row per run of any runtime. Ids are ULIDs, so key
-- order is creation order.
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
) WITHOUT ROWID;
-- No secondary indexes: a run's lifecycle then touches one b-tree page per
-- commit, which is most of what a short run costs. Listing pages by id uses
-- the primary key; the start-up scan for live runs reads the table once.

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
