-- 0011: port leases. Each live worktree leases a block of ports (first_port
-- .. first_port+count-1) so two tasks' dev servers never fight for one. A
-- lease lives as long as its task's worktree folder: it is deleted when the
-- worktree is paused, archived or removed, and with its task.
CREATE TABLE port_leases (
  task_id     TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
  first_port  INTEGER NOT NULL UNIQUE CHECK (first_port BETWEEN 1 AND 65535),
  count       INTEGER NOT NULL CHECK (count BETWEEN 1 AND 1000),
  leased_at   INTEGER NOT NULL
) WITHOUT ROWID;
