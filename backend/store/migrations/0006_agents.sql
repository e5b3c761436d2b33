-- 0006: agents grow what the Agents API manages. provider is the agent's
-- primary provider ('' when the runtime picks); config is the native
-- runtime's AgentConfig as JSON (NULL: the default config applies);
-- budget_usd is the agent-scope hard cap the user asked for (NULL: none).
ALTER TABLE agents ADD COLUMN provider TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN config TEXT;
ALTER TABLE agents ADD COLUMN budget_usd REAL;
