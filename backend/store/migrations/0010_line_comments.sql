-- 0010: line comments on a task's diff. A table of their own rather than
-- columns on task_comments: a line comment has a position (path, line,
-- side), can be deleted while unsent, and has a lifecycle (unsent → sent
-- with the run that carried it back to the agent); task_comments is the
-- task's append-only notes feed, which every reader would otherwise have to
-- filter. Deleting the task deletes its line comments.

CREATE TABLE task_line_comments (
  id           TEXT PRIMARY KEY,
  task_id      TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  path         TEXT NOT NULL CHECK (length(path) BETWEEN 1 AND 4096),
  line         INTEGER NOT NULL CHECK (line > 0),
  side         TEXT NOT NULL DEFAULT 'new' CHECK (side IN ('new','old')),
  body         TEXT NOT NULL CHECK (length(body) > 0),
  created_at   INTEGER NOT NULL,
  -- The run that carried the comment back to the agent (NULL: not sent).
  sent_run_id  TEXT,
  sent_at      INTEGER
);
CREATE INDEX task_line_comments_task ON task_line_comments(task_id, created_at);
