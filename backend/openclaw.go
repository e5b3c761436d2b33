package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/vault"
)

// The OpenClaw connection settings: the URL from the environment, else the
// settings table; the token from the environment, else the vault (slot
// CLAWBOO_OPENCLAW_TOKEN), else OpenClaw's own .env. The token never goes
// into the database.
const (
	openClawURLEnv     = "CLAWBOO_OPENCLAW_URL"
	openClawTokenSlot  = "CLAWBOO_OPENCLAW_TOKEN"
	openClawURLSetting = "openclaw.gateway.url"
)

// openClawService is the OpenClaw runtime as the backend runs it: one
// Gateway connection shared by the adapter, the exec approvals relay and
// the activity watcher, plus what the API's OpenClaw routes need.
type openClawService struct {
	b       *Backend
	getenv  func(string) string
	client  *openclaw.Client
	adapter *openclaw.Adapter
	relay   *openclaw.Relay
	watcher *openclaw.Watcher
	// changed wakes the card's status stream: connection states, OpenClaw
	// runs starting and ending, approvals asked and settled, MCP
	// registration.
	changed *bus.Broker[struct{}]
	stop    func() // stops the connection, relay, watcher and forwarding
}

// openOpenClaw builds the openclaw runtime: a device identity under
// <home>/runtimes/openclaw, the Gateway client (connecting in the
// background once a URL is set), exec approvals relayed through the
// approvals queue, and the activity watcher. Backend.Close stops it all
// (after the supervisor has aborted live runs).
func openOpenClaw(b *Backend, opts Options) executor.Adapter {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	log := b.log.With("part", "openclaw")
	s := &openClawService{b: b, getenv: getenv}
	// The device key is made on the first connection attempt, not here: an
	// install that never configures a Gateway never makes one (and start-up
	// does not pay for it).
	loadID := func() (*openclaw.Identity, error) {
		id, err := openclaw.LoadIdentity(filepath.Join(b.Config.Home, "runtimes", "openclaw"))
		if err != nil {
			log.Error("no OpenClaw device identity; the Gateway connection will fail", "err", err)
		}
		return id, err
	}
	s.client = openclaw.NewClient(openclaw.ClientOptions{Settings: s.connection, LoadIdentity: loadID, Log: log, Version: opts.Version})
	s.adapter = openclaw.New(openclaw.Options{Client: s.client, Log: log})
	s.relay = &openclaw.Relay{Client: s.client, Ask: s.ask, RunFor: s.adapter.RunFor, Log: log}
	s.watcher = &openclaw.Watcher{Client: s.client, Ours: s.adapter.LiveSessions}

	s.changed = bus.New[struct{}](0)
	ctx, cancel := context.WithCancel(context.Background())
	stopRelay := s.relay.Start(ctx)
	stopWatch := s.watcher.Start(ctx)
	states := s.client.SubscribeState()
	runs := b.Supervisor.Updates.Subscribe(64)
	s.client.Start()
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		runC := runs.C()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-states.C():
				if !ok {
					return
				}
				b.runtimesChanged.Publish(struct{}{})
				s.changed.Publish(struct{}{})
			case r, ok := <-runC:
				if !ok {
					runC = nil // the supervisor is closing (or dropped us): state changes still wake the card
					continue
				}
				if r.RuntimeID == string(executor.OpenClaw) {
					s.changed.Publish(struct{}{})
				}
			}
		}
	}()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			s.client.Close()
			stopRelay()
			stopWatch()
			<-forwarded
			states.Close()
			runs.Close()
			s.changed.Close()
		})
	}
	b.openClaw = s
	return s.adapter
}

// connection is read before every connection attempt.
func (s *openClawService) connection(ctx context.Context) openclaw.Settings {
	u, _ := s.url(ctx)
	tok, _ := s.token(ctx)
	return openclaw.Settings{URL: u, Token: tok}
}

func (s *openClawService) url(ctx context.Context) (string, string) {
	if u := strings.TrimSpace(s.getenv(openClawURLEnv)); u != "" {
		return u, "env"
	}
	if u, err := s.b.Store.GetSetting(ctx, openClawURLSetting); err == nil && u != "" {
		return u, "settings"
	}
	return "", ""
}

func (s *openClawService) token(ctx context.Context) (string, string) {
	if s.b.Vault == nil {
		return "", ""
	}
	tok, src := s.b.Vault.Resolve(ctx, string(executor.OpenClaw), openClawTokenSlot)
	switch src {
	case vault.SourceEnv:
		return tok, "env"
	case vault.SourceVault:
		return tok, "vault"
	case vault.SourceOpenClaw:
		return tok, "openclaw"
	}
	return "", ""
}

// Settings implements api.OpenClawService; the token only masked.
func (s *openClawService) Settings(ctx context.Context) api.OpenClawSettings {
	u, us := s.url(ctx)
	tok, ts := s.token(ctx)
	out := api.OpenClawSettings{URL: u, URLSource: us, TokenSet: tok != "", TokenSource: ts}
	if tok != "" {
		out.TokenMasked = mcp.MaskToken(tok)
	}
	return out
}

// SaveSettings implements api.OpenClawSettings: the URL into the settings
// table, the token into the vault; then the client reconnects.
func (s *openClawService) SaveSettings(ctx context.Context, u api.OpenClawSettingsUpdate) (api.OpenClawSettings, error) {
	if u.URL != nil {
		if *u.URL == "" {
			if err := s.b.Store.DeleteSetting(ctx, openClawURLSetting); err != nil {
				return api.OpenClawSettings{}, err
			}
		} else {
			p, err := url.Parse(*u.URL)
			if err != nil || (p.Scheme != "ws" && p.Scheme != "wss") || p.Host == "" || p.User != nil {
				return api.OpenClawSettings{}, fmt.Errorf("%w: the Gateway URL must be ws:// or wss://host:port (e.g. ws://127.0.0.1:18789)", api.ErrOpenClawSettings)
			}
			if err := s.b.Store.PutSetting(ctx, openClawURLSetting, *u.URL, time.Now().UnixMilli()); err != nil {
				return api.OpenClawSettings{}, err
			}
		}
	}
	if u.Token != nil {
		var err error
		if *u.Token == "" {
			err = s.b.Vault.Delete(ctx, openClawTokenSlot)
		} else {
			err = s.b.Vault.Set(ctx, openClawTokenSlot, *u.Token)
		}
		if errors.Is(err, vault.ErrInvalid) {
			return api.OpenClawSettings{}, fmt.Errorf("%w: %v", api.ErrOpenClawSettings, err)
		}
		if err != nil {
			return api.OpenClawSettings{}, fmt.Errorf("store the Gateway token: %w", err)
		}
	}
	s.client.Reconfigure()
	s.b.runtimesChanged.Publish(struct{}{})
	return s.Settings(ctx), nil
}

// openClawStatus is the OpenClaw card.
type openClawStatus struct {
	Connection openclaw.State       `json:"connection"`
	Settings   api.OpenClawSettings `json:"settings"`
	// Health is the runtime's health probe (agents.list within 2 s).
	Health       executor.Health   `json:"health"`
	DefaultAgent string            `json:"defaultAgent,omitempty"`
	Agents       []openClawAgent   `json:"agents"`
	LiveRuns     int               `json:"liveRuns"`
	Approvals    int               `json:"pendingApprovals"`
	MCPServers   map[string]string `json:"mcpServers"`
	// MCPRegistered: all of Clawboo's servers are in mcp.servers.
	MCPRegistered bool `json:"mcpRegistered"`
}

type openClawAgent struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace,omitempty"`
	Model     string `json:"model,omitempty"`
}

// api is the service as the API sees it: nil (503) when OpenClaw is not
// wired, never a typed nil.
func (s *openClawService) api() api.OpenClawService {
	if s == nil {
		return nil
	}
	return s
}

// close stops the service; safe on nil and more than once.
func (s *openClawService) close() {
	if s != nil && s.stop != nil {
		s.stop()
	}
}

// Status implements api.OpenClawService.
func (s *openClawService) Status(ctx context.Context) any {
	st := openClawStatus{Settings: s.Settings(ctx), Agents: []openClawAgent{},
		LiveRuns: len(s.adapter.LiveSessions()), Approvals: s.relay.Pending(), MCPServers: map[string]string{}}
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
			st.Agents = append(st.Agents, openClawAgent{ID: a.ID, Workspace: a.Workspace, Model: a.Model.Primary})
		}
	}
	if servers, err := openclaw.MCPServers(ctx, s.client); err == nil {
		st.MCPServers = servers
		st.MCPRegistered = true
		for _, n := range []string{mcp.Tasks, mcp.Memory, mcp.Tools} {
			if servers[mcp.ServerName(n)] == "" {
				st.MCPRegistered = false
			}
		}
	}
	return st
}

// RegisterMCP implements api.OpenClawService: Clawboo's Memory, Tasks and
// Tools servers, unbound (no agent identity), into mcp.servers. The
// Gateway's config is shared by all its agents, so it cannot carry a run
// token; it gets the hub's gateway token, a secret of its own derived from
// the install token (stable across restarts, replaced when the install
// token is rotated, which then needs a new registration), so the token a
// person's own clients use never sits in the Gateway's config.
func (s *openClawService) RegisterMCP(ctx context.Context, baseURL string) (any, error) {
	if s.b.MCP == nil {
		return nil, errors.New("the MCP servers are not running")
	}
	if u := s.b.BaseURL(); u != "" {
		baseURL = u
	}
	at, err := s.b.MCP.AttachGateway(baseURL)
	if err != nil {
		return nil, err
	}
	var form struct {
		MCP struct {
			Servers map[string]any `json:"servers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal([]byte(at.Clients[mcp.ClientOpenClaw].Text), &form); err != nil {
		return nil, err
	}
	res, err := openclaw.RegisterMCP(ctx, s.client, form.MCP.Servers)
	if err == nil {
		s.changed.Publish(struct{}{})
	}
	return res, err
}

// reregisterMCP registers Clawboo's servers again after a token rotation,
// when the Gateway has them: its config still holds the old gateway
// token, which no longer works. A Gateway that is not connected, or has
// no Clawboo servers, is left alone (the card's Register does it later).
func (s *openClawService) reregisterMCP(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	servers, err := openclaw.MCPServers(ctx, s.client)
	if err != nil || servers[mcp.ServerName(mcp.Tasks)] == "" {
		return
	}
	if _, err := s.RegisterMCP(ctx, s.b.BaseURL()); err != nil {
		s.b.log.Warn("the OpenClaw Gateway still has the old MCP token; register Clawboo's servers again from its card", "err", err)
	}
}

// SubscribeStatus implements api.OpenClawService.
func (s *openClawService) SubscribeStatus() (<-chan struct{}, func()) {
	sub := s.changed.Subscribe(1)
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for {
			select {
			case _, ok := <-sub.C():
				if !ok {
					return
				}
				select {
				case out <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(func() { sub.Close(); close(done) }) }
}

// Activity implements api.OpenClawService.
func (s *openClawService) Activity() any { return s.watcher.Recent() }

// SubscribeActivity implements api.OpenClawService.
func (s *openClawService) SubscribeActivity() (<-chan any, func()) {
	sub := s.watcher.Subscribe(64)
	out := make(chan any, 64)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for {
			select {
			case a, ok := <-sub.C():
				if !ok {
					return
				}
				select {
				case out <- a:
				case <-done:
					return
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(func() { sub.Close(); close(done) }) }
}

// ask puts one Gateway exec approval to a person through the approvals
// queue (kind "command"); only an approval allows it.
func (s *openClawService) ask(ctx context.Context, q openclaw.Question, ttl time.Duration) (bool, error) {
	if s.b.Approvals == nil {
		return false, errors.New("no approvals queue")
	}
	// The card counts pending approvals: wake it when this one is asked
	// and again when it is settled.
	s.changed.Publish(struct{}{})
	defer s.changed.Publish(struct{}{})
	res, err := s.b.Approvals.Ask(ctx, approval.Request{Kind: approval.KindCommand, Title: q.Title, Command: q.Command,
		Folder: q.Folder, Reason: q.Reason, Risk: q.Risk, RunID: q.RunID, AgentID: q.AgentID}, ttl)
	if err != nil {
		return false, err
	}
	return res.Allowed(), nil
}

var _ api.OpenClawService = (*openClawService)(nil)
