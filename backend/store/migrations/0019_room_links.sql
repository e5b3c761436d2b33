-- 0019: the room leads to the work, and a person's stop is final.
-- A room post may name the task it is about (task_id: a delegation, a
-- report-up, a merge, a send-back or a stop), and posts may be of kind
-- 'stop' or 'merge' (readers treat kinds they do not know as system
-- posts). A delegation a person stopped is 'stopped': the pump, a
-- restart's recovery and the leader's [Task Update] all leave it alone
-- until a person runs its task again.

CREATE TABLE team_chat_0019 (
  room_id          TEXT NOT NULL,
  seq              INTEGER NOT NULL CHECK (seq > 0),
  team_id          TEXT NOT NULL,
  author_agent_id  TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('peer','delegate','system','user','stop','merge')),
  body             TEXT NOT NULL,
  assignee         TEXT,
  task_id          TEXT,
  created_at       INTEGER NOT NULL,
  PRIMARY KEY (room_id, seq)
) WITHOUT ROWID;
INSERT INTO team_chat_0019(room_id, seq, team_id, author_agent_id, kind, body, assignee, task_id, created_at)
  SELECT room_id, seq, team_id, author_agent_id, kind, body, assignee, NULL, created_at FROM team_chat;
DROP TABLE team_chat;
ALTER TABLE team_chat_0019 RENAME TO team_chat;

CREATE TABLE delegations_0019 (
  id             TEXT PRIMARY KEY,
  team_id        TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  turn_run_id    TEXT NOT NULL,
  leader_id      TEXT NOT NULL,
  assignee_id    TEXT NOT NULL,
  mission_id     TEXT NOT NULL,
  task_id        TEXT NOT NULL,
  depth          INTEGER NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('pending','running','ended','reported','stopped')),
  failures       INTEGER NOT NULL DEFAULT 0,
  child_run_id   TEXT,
  outcome        TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
INSERT INTO delegations_0019 SELECT id, team_id, turn_run_id, leader_id, assignee_id, mission_id, task_id, depth, status,
  failures, child_run_id, outcome, created_at, updated_at FROM delegations;
DROP TABLE delegations;
ALTER TABLE delegations_0019 RENAME TO delegations;
CREATE INDEX delegations_team ON delegations(team_id, status);
CREATE UNIQUE INDEX delegations_task ON delegations(task_id);
