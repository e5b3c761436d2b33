-- 0024: phones paired with this Clawboo (issue 30, backend/devices). Only a
-- token's SHA-256 is kept; the token itself went to the device once.
CREATE TABLE devices (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  token_sum   BLOB NOT NULL UNIQUE,
  created_at  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL
);
