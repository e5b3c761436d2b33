package memory

import (
	"database/sql"
	"fmt"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
)

// Memory scope. A fact has a team (NULL: global) and an agent (NULL:
// shared). Who may see it:
//
//	bound to team T and agent A   team_id ∈ {NULL, T} and agent_id ∈ {NULL, A}
//	unbound with scope arguments  the same rule, with T and A from the arguments
//	unbound without               every fact
//
// so another team's fact, or another agent's private fact, is never
// visible to a bound session. A bound session's scope arguments may only
// repeat its binding; anything else is refused as spoofing.

// readScope is the visibility rule of one call.
type readScope struct {
	all         bool // unbound and unscoped: every fact
	team, agent string
}

// scopeWhere is readScope as SQL over memory_facts aliased f; its
// arguments are readScope.args, in order.
const scopeWhere = `(? = 1 OR ((f.team_id IS NULL OR f.team_id = ?) AND (f.agent_id IS NULL OR f.agent_id = ?)))`

func (s readScope) args() []any {
	all := 0
	if s.all {
		all = 1
	}
	return []any{all, s.team, s.agent}
}

// visible is scopeWhere in Go, for checks in tests and on loaded rows.
func (s readScope) visible(team, agent string) bool {
	return s.all || ((team == "" || team == s.team) && (agent == "" || agent == s.agent))
}

// scopeDenied refuses scope arguments that name someone a bound session
// is not.
func scopeDenied(kind, bound, asked string) *mcp.CallToolResult {
	if bound == "" {
		bound = "no " + kind
	}
	return toolcall.Denied("scope_denied",
		fmt.Sprintf("scope refused: this session is bound to %s; it cannot use %s %q", bound, kind, asked),
		"Leave scopeTeamId and scopeAgentId out: a bound session reads its team's, global and its own facts, and saves for its team.")
}

// checkScopeArgs validates scope arguments against the caller: a bound
// caller may only name itself.
func checkScopeArgs(c toolcall.Caller, team, agent string) *mcp.CallToolResult {
	if !toolcall.ValidID(team) || !toolcall.ValidID(agent) {
		return toolcall.InvalidArgs("scopeTeamId and scopeAgentId are ids of letters, digits, '_', '-', '.' and ':' (at most 128)")
	}
	if !c.Bound() {
		return nil
	}
	if team != "" && team != c.TeamID {
		return scopeDenied("team", c.TeamID, team)
	}
	if agent != "" && agent != c.AgentID {
		return scopeDenied("agent", c.AgentID, agent)
	}
	return nil
}

// resolveRead is the visibility rule for a read.
func resolveRead(c toolcall.Caller, team, agent string) (readScope, *mcp.CallToolResult) {
	if r := checkScopeArgs(c, team, agent); r != nil {
		return readScope{}, r
	}
	if c.Bound() {
		return readScope{team: c.TeamID, agent: c.AgentID}, nil
	}
	return readScope{all: team == "" && agent == "", team: team, agent: agent}, nil
}

// resolveWrite is the team and agent a save is tagged with (NULL when
// not valid). Bound: the team, shared with it; private to the agent only
// when the caller asks for its own agent scope, or has no team to share
// with (an agent-only binding never writes global facts). Unbound: the
// arguments as given.
func resolveWrite(c toolcall.Caller, team, agent string) (t, a sql.NullString, res *mcp.CallToolResult) {
	if r := checkScopeArgs(c, team, agent); r != nil {
		return t, a, r
	}
	if !c.Bound() {
		return nullStr(team), nullStr(agent), nil
	}
	t = nullStr(c.TeamID)
	if agent != "" || c.TeamID == "" {
		a = nullStr(c.AgentID)
	}
	return t, a, nil
}

func nullStr(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
