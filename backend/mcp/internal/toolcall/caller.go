package toolcall

import "context"

// Binding is who a session acts for. The zero Binding is an unbound
// session (a person's own MCP client, or OpenClaw's Gateway). The hub signs
// and verifies it (backend/mcp's Signer); the servers only read it.
type Binding struct {
	TeamID   string `json:"teamId,omitempty"`
	AgentID  string `json:"agentId,omitempty"`
	Delegate bool   `json:"delegate,omitempty"` // may use team_delegate
	// ReadOnly limits the Tasks server to list_tasks and get_task (the
	// native config's tasks: "read").
	ReadOnly bool `json:"readOnly,omitempty"`
	// RunID is the run the session serves, when the host knows it: a
	// native run's in-process sessions and a CLI run's own token carry it
	// (both set by the host, never read from a URL), so an approval the
	// session asks for names its run. It is not part of the signed query.
	RunID string `json:"runId,omitempty"`
}

// Bound reports a binding that names a team or an agent.
func (b Binding) Bound() bool { return b.TeamID != "" || b.AgentID != "" }

// ValidID accepts "" and ids of letters, digits, '_', '-', '.' and ':' up
// to 128 bytes.
func ValidID(id string) bool {
	if len(id) > 128 {
		return false
	}
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.', r == ':':
		default:
			return false
		}
	}
	return true
}

type callerKey struct{}

// Caller is the identity a tool handler acts for.
type Caller struct {
	Binding
	// Transport is "http" or "in-process".
	Transport string
}

// WithCaller attaches the caller to ctx; only the hub's transports call it
// (see the package invariants).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller a request was verified as (the zero,
// unbound Caller when none).
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}
