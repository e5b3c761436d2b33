-- 0003: memory — the facts and procedures agents share through the
-- clawboo-memory MCP server, their full-text index and their vectors.
--
-- A procedure is a row with kind 'procedure' and a procedure_name; saving
-- it again adds a new version and marks the previous one superseded, so
-- only one version per name and scope is current. Text is scrubbed of
-- secrets before it reaches this table (backend/mcp does it).

CREATE TABLE memory_facts (
  -- seq is the rowid the FTS index points at: an INTEGER PRIMARY KEY, so
  -- VACUUM can never renumber it under the index.
  seq            INTEGER PRIMARY KEY,
  id             TEXT NOT NULL UNIQUE,
  kind           TEXT NOT NULL CHECK (kind IN ('fact','procedure')),
  title          TEXT NOT NULL,
  content        TEXT NOT NULL,
  tags           TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
  procedure_name TEXT,
  version        INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  -- Scope: NULL team = global; NULL agent = shared by the team (or by all).
  team_id        TEXT CHECK (team_id IS NULL OR team_id <> ''),
  agent_id       TEXT CHECK (agent_id IS NULL OR agent_id <> ''),
  -- The vector: little-endian float32, L2-normalised, made by embedder
  -- (an Embedder ID); only vectors of one embedder are compared.
  embedder       TEXT,
  embedding_dim  INTEGER,
  embedding      BLOB,
  created_at     INTEGER NOT NULL,  -- unix ms
  superseded_at  INTEGER,           -- a procedure's older version
  CHECK ((kind = 'procedure') = (procedure_name IS NOT NULL)),
  CHECK (embedding IS NULL OR length(embedding) = 4 * embedding_dim)
);
-- One current version per procedure name and scope.
CREATE UNIQUE INDEX memory_procedures_current
  ON memory_facts(procedure_name, COALESCE(team_id, ''), COALESCE(agent_id, ''))
  WHERE procedure_name IS NOT NULL AND superseded_at IS NULL;

-- External-content FTS5 index over title, content and tags, stemmed by
-- porter; kept in step with memory_facts by the triggers below.
CREATE VIRTUAL TABLE memory_facts_fts USING fts5(
  title, content, tags,
  content = 'memory_facts', content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memory_facts_ai AFTER INSERT ON memory_facts BEGIN
  INSERT INTO memory_facts_fts(rowid, title, content, tags)
  VALUES (new.seq, new.title, new.content, new.tags);
END;

CREATE TRIGGER memory_facts_ad AFTER DELETE ON memory_facts BEGIN
  INSERT INTO memory_facts_fts(memory_facts_fts, rowid, title, content, tags)
  VALUES ('delete', old.seq, old.title, old.content, old.tags);
END;

CREATE TRIGGER memory_facts_au AFTER UPDATE OF title, content, tags ON memory_facts BEGIN
  INSERT INTO memory_facts_fts(memory_facts_fts, rowid, title, content, tags)
  VALUES ('delete', old.seq, old.title, old.content, old.tags);
  INSERT INTO memory_facts_fts(rowid, title, content, tags)
  VALUES (new.seq, new.title, new.content, new.tags);
END;
