package openclaw

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
)

// Status is the OpenClaw card.
type Status struct {
	Connection State        `json:"connection"`
	Settings   FormSettings `json:"settings"`
	// Health is the runtime's health probe (agents.list within 2 s).
	Health       executor.Health   `json:"health"`
	DefaultAgent string            `json:"defaultAgent,omitempty"`
	Agents       []Agent           `json:"agents"`
	LiveRuns     int               `json:"liveRuns"`
	Approvals    int               `json:"pendingApprovals"`
	MCPServers   map[string]string `json:"mcpServers"`
	// MCPRegistered: all of Clawboo's servers are in mcp.servers.
	MCPRegistered bool `json:"mcpRegistered"`
}

// Agent is one Gateway agent on the card.
type Agent struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace,omitempty"`
	Model     string `json:"model,omitempty"`
}

// Status reads the card: it probes health (which may wait for the
// connection), then lists the Gateway's agents and MCP servers.
func (s *Service) Status(ctx context.Context) Status {
	st := Status{
		Settings: s.Settings(ctx), Agents: []Agent{},
		LiveRuns: len(s.adapter.LiveSessions()), Approvals: s.relay.Pending(), MCPServers: map[string]string{},
	}
	st.Health = executor.ProbeHealth(ctx, s.adapter)
	// After the probe, which may have waited for the connection.
	st.Connection = s.client.State()
	if !st.Health.OK {
		return st
	}
	ctx, cancel := context.WithTimeout(ctx, executor.HealthTimeout)
	defer cancel()
	var list struct {
		DefaultID string `json:"defaultId"`
		Agents    []struct {
			ID        string `json:"id"`
			Workspace string `json:"workspace"`
			Model     struct {
				Primary string `json:"primary"`
			} `json:"model"`
		} `json:"agents"`
	}
	if s.client.Request(ctx, "agents.list", nil, &list) == nil {
		st.DefaultAgent = list.DefaultID
		for _, a := range list.Agents {
			st.Agents = append(st.Agents, Agent{ID: a.ID, Workspace: a.Workspace, Model: a.Model.Primary})
		}
	}
	if servers, err := MCPServers(ctx, s.client); err == nil {
		st.MCPServers = servers
		st.MCPRegistered = true
		for _, n := range mcp.OpenClawServers() {
			if servers[mcp.ServerName(n)] == "" {
				st.MCPRegistered = false
			}
		}
	}
	return st
}

// SubscribeStatus wakes when anything on the card may have changed (lossy:
// re-read Status). The subscription ends when the service closes.
func (s *Service) SubscribeStatus() *bus.Subscription[struct{}] { return s.changed.Subscribe(1) }

// RegisterMCP writes Clawboo's Memory, Tasks and Tools servers, unbound
// (no agent identity), into mcp.servers. The Gateway's config is shared by
// all its agents, so it cannot carry a run token; it gets the hub's
// gateway token, a secret of its own derived from the install token
// (stable across restarts, replaced when the install token is rotated,
// which then needs a new registration), so the token a person's own
// clients use never sits in the Gateway's config.
func (s *Service) RegisterMCP(ctx context.Context, baseURL string) (Registered, error) {
	var hub *mcp.Hub
	if s.o.Hub != nil {
		hub = s.o.Hub()
	}
	if hub == nil {
		return Registered{}, errors.New("the MCP servers are not running")
	}
	if s.o.BaseURL != nil {
		if u := s.o.BaseURL(); u != "" {
			baseURL = u
		}
	}
	at, err := hub.AttachGateway(baseURL)
	if err != nil {
		return Registered{}, err
	}
	var form struct {
		MCP struct {
			Servers map[string]any `json:"servers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(at.Clients[mcp.ClientOpenClaw].Text), &form); err != nil {
		return Registered{}, err
	}
	res, err := RegisterMCP(ctx, s.client, form.MCP.Servers)
	if err == nil {
		s.changed.Publish(struct{}{})
	}
	return res, err
}

// ReregisterMCP registers Clawboo's servers again after a token rotation,
// when the Gateway has them: its config still holds the old gateway
// token, which no longer works. A Gateway that is not connected, or has
// no Clawboo servers, is left alone (the card's Register does it later).
func (s *Service) ReregisterMCP(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	servers, err := MCPServers(ctx, s.client)
	if err != nil || servers[mcp.ServerName(mcp.Tasks)] == "" {
		return
	}
	base := ""
	if s.o.BaseURL != nil {
		base = s.o.BaseURL()
	}
	if _, err := s.RegisterMCP(ctx, base); err != nil {
		s.o.Log.Warn("the OpenClaw Gateway still has the old MCP token; register Clawboo's servers again from its card", "err", err)
	}
}

// Activity is the recent tool activity of runs Clawboo did not start,
// oldest first.
func (s *Service) Activity() []Activity { return s.watcher.Recent() }

// ActivityFeed is a broker of new activity as T (each entry converted by
// as), closed when the service closes. Call it before Start: it lets a
// consumer that cannot name Activity (the API) subscribe to its own type
// without a forwarding goroutine per subscriber.
func ActivityFeed[T any](s *Service, as func(Activity) T) *bus.Broker[T] {
	b := bus.New[T](0)
	s.sinks = append(s.sinks, func(a Activity) { b.Publish(as(a)) })
	s.stops = append(s.stops, b.Close)
	return b
}

func (s *Service) publishActivity(a Activity) {
	for _, sink := range s.sinks {
		sink(a)
	}
}

// Ask puts one Gateway exec approval to a person (the relay's Ask); the
// card is woken when it is asked and again when it is settled, since it
// shows the pending count.
func (s *Service) Ask(ctx context.Context, q Question, ttl time.Duration) (bool, error) {
	if s.o.Ask == nil {
		return false, errors.New("no approvals queue")
	}
	s.changed.Publish(struct{}{})
	defer s.changed.Publish(struct{}{})
	return s.o.Ask(ctx, q, ttl)
}
