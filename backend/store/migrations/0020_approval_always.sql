-- 0020: an agent may offer "allow always for this session" (an ACP
-- agent's allow_always option). always says the request offered it; scope
-- is 'session' when a person chose it ('' for a one-time answer). Only an
-- approved request has a scope.

ALTER TABLE approvals ADD COLUMN always INTEGER NOT NULL DEFAULT 0;
ALTER TABLE approvals ADD COLUMN scope TEXT NOT NULL DEFAULT '';
