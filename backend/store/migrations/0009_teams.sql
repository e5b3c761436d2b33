-- 0009: teams. Until now a team was free text on tasks, runs, chat posts,
-- budgets, spend and memory; from here every team id names a row here.
-- Existing free-text ids become teams named by their id (the person can
-- rename them), so nothing that referred to a team loses it.

CREATE TABLE teams (
  id               TEXT PRIMARY KEY CHECK (id <> ''),
  name             TEXT NOT NULL UNIQUE CHECK (name <> ''),
  leader_agent_id  TEXT REFERENCES agents(id) ON DELETE SET NULL,
  brief            TEXT NOT NULL DEFAULT '',
  repo_path        TEXT,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);

-- An agent is a member of any number of teams; deleting either side
-- removes the membership.
CREATE TABLE team_members (
  team_id   TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  agent_id  TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  added_at  INTEGER NOT NULL,
  PRIMARY KEY (team_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX team_members_agent ON team_members(agent_id);

-- The mailbox: a post reaches each agent at most once. A row here says
-- post (room_id, seq) was delivered to agent_id, and how.
CREATE TABLE team_deliveries (
  room_id       TEXT NOT NULL,
  seq           INTEGER NOT NULL,
  agent_id      TEXT NOT NULL,
  via           TEXT NOT NULL CHECK (via IN ('digest','piggyback','signal')),
  delivered_at  INTEGER NOT NULL,
  PRIMARY KEY (room_id, agent_id, seq)
) WITHOUT ROWID;

-- Delegations: one row per signal acted on (or refused). status:
-- pending (task made, not started), running, ended (the child finished and
-- the report-up is posted), reported (the leader's [Task Update] fired),
-- refused.
CREATE TABLE delegations (
  id             TEXT PRIMARY KEY,
  team_id        TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  turn_run_id    TEXT NOT NULL,
  leader_id      TEXT NOT NULL,
  assignee_id    TEXT NOT NULL,
  mission_id     TEXT NOT NULL,
  task_id        TEXT NOT NULL,
  depth          INTEGER NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('pending','running','ended','reported')),
  failures       INTEGER NOT NULL DEFAULT 0,
  child_run_id   TEXT,
  outcome        TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX delegations_team ON delegations(team_id, status);
CREATE UNIQUE INDEX delegations_task ON delegations(task_id);

INSERT OR IGNORE INTO teams(id, name, created_at, updated_at)
  SELECT t, t, CAST(strftime('%s','now') AS INTEGER) * 1000, CAST(strftime('%s','now') AS INTEGER) * 1000 FROM (
    SELECT team_id AS t FROM tasks WHERE team_id IS NOT NULL AND team_id <> ''
    UNION SELECT team_id FROM runs WHERE team_id IS NOT NULL AND team_id <> ''
    UNION SELECT team_id FROM team_chat WHERE team_id <> ''
    UNION SELECT scope_id FROM budgets WHERE scope = 'team'
    UNION SELECT team_id FROM spend WHERE team_id IS NOT NULL AND team_id <> ''
    UNION SELECT team_id FROM memory_facts WHERE team_id IS NOT NULL
  );
