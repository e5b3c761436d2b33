-- 0005: team chat. One room per team (room_id is the team id); every post
-- has a sequence number, strictly increasing per room, assigned inside the
-- write transaction that stores it. Bodies are stored already scrubbed of
-- secrets and unwrapped; readers wrap them.

CREATE TABLE team_chat (
  room_id          TEXT NOT NULL,
  seq              INTEGER NOT NULL CHECK (seq > 0),
  team_id          TEXT NOT NULL,
  author_agent_id  TEXT NOT NULL,
  -- peer: a team_chat_post; delegate: a team_delegate signal (the
  -- orchestration engine acts on it; the chat only records it).
  kind             TEXT NOT NULL CHECK (kind IN ('peer','delegate','system','user')),
  body             TEXT NOT NULL,
  -- The delegate's assignee (kind 'delegate' only).
  assignee         TEXT,
  created_at       INTEGER NOT NULL,
  PRIMARY KEY (room_id, seq)
) WITHOUT ROWID;
