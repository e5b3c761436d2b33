-- 0023: a team's default place (issue 29): where its members run unless
-- one is placed on a host of its own ('' is this computer).
ALTER TABLE teams ADD COLUMN host_id TEXT NOT NULL DEFAULT '';
