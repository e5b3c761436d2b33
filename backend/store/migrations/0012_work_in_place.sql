-- 0012: work in place. A code task may choose no worktree and work in the
-- repository's own checkout. Two such tasks on one repository never run at
-- once: each holds the repository's row in checkout_locks while its run is
-- live. The row names the run, so a lock whose run died (a crash, another
-- process on this home that went away) is released by the stale sweep.
ALTER TABLE tasks ADD COLUMN work_in_place INTEGER NOT NULL DEFAULT 0;

CREATE TABLE checkout_locks (
  repo_path  TEXT PRIMARY KEY,
  task_id    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  run_id     TEXT NOT NULL,
  locked_at  INTEGER NOT NULL
) WITHOUT ROWID;
