-- Run-event retention's age rule compacts each finished run once: a run
-- compacted (by either rule) records when, and the index holds only the
-- finished runs still waiting, by when they ended, so a run that is still
-- live or ended recently never holds back the ones after it. The age
-- rule's old cursor (a run id it stopped at) goes.
ALTER TABLE runs ADD COLUMN compacted_at INTEGER;
CREATE INDEX runs_to_compact ON runs(ended_at) WHERE compacted_at IS NULL AND ended_at IS NOT NULL;
DELETE FROM settings WHERE key = 'retention.compacted_through';
