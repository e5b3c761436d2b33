-- 0014: a task's secrets, by name only. The names (a JSON array of
-- environment variable names) say which of the user's vault secrets the
-- task's setup, runtime, verify and teardown receive; values live only in
-- the vault (backend/vault's task secrets) and never in this database.
ALTER TABLE tasks ADD COLUMN secrets TEXT NOT NULL DEFAULT '[]';
