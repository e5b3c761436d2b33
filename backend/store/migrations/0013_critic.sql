-- 0013: the critic. After a task's change passes verify, a fresh run of the
-- same runtime may review the committed diff (backend/review). A task says
-- auto (review a risky change: a parent, > 5 files or > 300 lines), on or
-- off; a team can turn auto's reviews off for its tasks (on by default).
ALTER TABLE tasks ADD COLUMN critic TEXT NOT NULL DEFAULT 'auto' CHECK (critic IN ('auto','on','off'));
ALTER TABLE teams ADD COLUMN critic INTEGER NOT NULL DEFAULT 1;
