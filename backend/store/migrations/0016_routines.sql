-- 0016: routines. A schedule is standing work for one agent: a spec (five
-- cron fields, an @name, or once@<RFC 3339>) in a timezone, and the task
-- template a fire turns into a task. next_run_at NULL means disarmed.
-- owner and lease_until say which process holds a claimed or running
-- schedule, and until when (the owner renews it; a lapsed lease is swept).
CREATE TABLE schedules (
  id            TEXT PRIMARY KEY CHECK (id <> ''),
  agent_id      TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  team_id       TEXT REFERENCES teams(id) ON DELETE SET NULL,
  spec          TEXT NOT NULL CHECK (spec <> ''),
  timezone      TEXT NOT NULL DEFAULT '',
  template      TEXT NOT NULL,
  status        TEXT NOT NULL DEFAULT 'idle'
                CHECK (status IN ('idle','queued','claimed','running','paused','error')),
  next_run_at   INTEGER,
  last_run_at   INTEGER,
  last_outcome  TEXT,
  last_error    TEXT,
  failures      INTEGER NOT NULL DEFAULT 0,
  owner         TEXT,
  lease_until   INTEGER,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
-- The timer's one question: the earliest armed due time.
CREATE INDEX schedules_due ON schedules(next_run_at) WHERE status = 'idle' AND next_run_at IS NOT NULL;
CREATE INDEX schedules_agent ON schedules(agent_id);

-- The fire ledger: one row per fire (run now included), per missed due
-- time beyond the grace window, and per skip.
CREATE TABLE schedule_fires (
  id           TEXT PRIMARY KEY,
  schedule_id  TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  due_at       INTEGER NOT NULL,
  started_at   INTEGER,
  ended_at     INTEGER,
  outcome      TEXT NOT NULL
               CHECK (outcome IN ('running','success','failed','skipped','missed','interrupted')),
  reason       TEXT NOT NULL DEFAULT '',
  run_id       TEXT,
  task_id      TEXT,
  cost_nano    INTEGER NOT NULL DEFAULT 0,
  manual       INTEGER NOT NULL DEFAULT 0,
  owner        TEXT,
  lease_until  INTEGER
);
CREATE INDEX schedule_fires_schedule ON schedule_fires(schedule_id, id);
-- At most one running fire per schedule: a run now and a due time never overlap.
CREATE UNIQUE INDEX schedule_fires_one_running ON schedule_fires(schedule_id) WHERE outcome = 'running';
CREATE INDEX schedule_fires_lease ON schedule_fires(lease_until) WHERE outcome = 'running';
