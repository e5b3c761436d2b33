-- 0015: the message a run was started with, so a chat shows the person's
-- whole turn (the title is only its first line). Written with the run's
-- row, bounded and with secret-looking tokens redacted by the supervisor;
-- NULL for runs from before this migration and runs without a message.
ALTER TABLE runs ADD COLUMN prompt TEXT;
