-- 0021: other machines a team's runs may go to (backend/hosts). A host is
-- an SSH destination a person added; what Clawboo last learned of it is
-- kept here (its state and the reason in words, what it is). No key, no
-- password and no host key is stored here: host keys live in Clawboo's
-- known_hosts file, secrets in the vault.
CREATE TABLE hosts (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  destination   TEXT NOT NULL UNIQUE,
  state         TEXT NOT NULL DEFAULT 'connecting'
                CHECK (state IN ('ready','connecting','unreachable','unknown-host-key','host-key-changed','version-mismatch')),
  reason        TEXT NOT NULL DEFAULT '',
  fingerprint   TEXT NOT NULL DEFAULT '',
  os            TEXT NOT NULL DEFAULT '',
  arch          TEXT NOT NULL DEFAULT '',
  cores         INTEGER NOT NULL DEFAULT 0,
  memory_bytes  INTEGER NOT NULL DEFAULT 0,
  runtimes      TEXT NOT NULL DEFAULT '[]',   -- JSON: the runtime ids whose program was found there
  concurrency   INTEGER NOT NULL DEFAULT 0,   -- runs at once there; 0: from its memory and cores
  checked_at    INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
