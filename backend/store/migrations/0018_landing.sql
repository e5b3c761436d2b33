-- 0018: reserved for the landing branch (issue 25); this placeholder keeps
-- the numbering whole on the stop branch until that branch's file replaces it.
SELECT 1;
