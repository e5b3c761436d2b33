-- The resume handle of a run's conversation: session is the versioned codec
-- value ({"v":1,"key":…,"native":…}), session_key its key, both written at
-- finish and only when the runtime reported a session of its own. The index
-- covers just those runs, so runs without a session pay nothing.
ALTER TABLE runs ADD COLUMN session_key TEXT;
CREATE INDEX runs_session ON runs(runtime_id, session_key, created_at) WHERE session_key IS NOT NULL;
