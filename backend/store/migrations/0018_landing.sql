-- 0018: landing (issue 25 §1–3). A task's work is done when it is in its
-- base branch. base_branch is the branch the work goes back into, recorded
-- when the task's worktree is made (or chosen by a person); merged is JSON
-- {"base","commit","how","at"} once the work is in it (NULL until then);
-- merge_when_green lets Clawboo merge a change whose verify passed, for a
-- task or for every task of a team.
ALTER TABLE tasks ADD COLUMN base_branch TEXT;
ALTER TABLE tasks ADD COLUMN merge_when_green INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN merged TEXT;
ALTER TABLE teams ADD COLUMN merge_when_green INTEGER NOT NULL DEFAULT 0;
