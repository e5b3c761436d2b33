-- 0022: where work runs (issue 29). An agent may be placed on a host (''
-- is this computer); a task and a run record the host they went to (NULL:
-- this computer), so the board, the drawer and the runs say where, and a
-- task's branch is fetched back from the host it ran on.
ALTER TABLE agents ADD COLUMN host_id TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN host_id TEXT;
ALTER TABLE runs ADD COLUMN host_id TEXT;
