package backend

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/vault"
)

// openNative builds clawboo-native: transcripts under the home, tools from
// the MCP hub, each agent's config from the agents service, and providers
// routed over keys the vault resolves at the start of each run.
func (b *Backend) openNative(opts Options) *native.Adapter {
	getenv := opts.Getenv
	return native.New(native.Options{
		Hub: b.MCP, Home: b.Config.Home, Log: b.log.With("part", "native"),
		Config: b.nativeConfig,
		Providers: func(ctx context.Context, cfg native.AgentConfig) (llm.Provider, error) {
			return b.nativeRouter(ctx, cfg, getenv)
		},
		Ready: b.nativeReady,
		Ask:   b.askCommand,
	})
}

// askCommand puts a native run's run_command to a person through the
// approvals queue (kind "command", answerable for 10 minutes). No queue,
// or a request that cannot be recorded, is an error: the adapter reads it
// as "not asked", never as allowed.
func (b *Backend) askCommand(ctx context.Context, r native.AskRequest) (native.AskAnswer, error) {
	if b.Approvals == nil {
		return native.AskAnswer{}, errors.New("the approvals queue is not running")
	}
	prog := ""
	if len(r.Argv) > 0 {
		prog = filepath.Base(r.Argv[0])
	}
	got, err := b.Approvals.Ask(ctx, approval.Request{
		Kind: approval.KindCommand, Title: "Run " + prog, Command: r.Command, Folder: r.Folder,
		AgentID: r.AgentID, TeamID: r.TeamID, TaskID: r.TaskID, RunID: r.RunID, Reason: r.Why,
	}, approval.DefaultTTL)
	if err != nil {
		return native.AskAnswer{}, err
	}
	switch got.Status {
	case approval.Approved:
		return native.AskAnswer{Outcome: native.AskAllowed, Note: got.Note}, nil
	case approval.Denied:
		return native.AskAnswer{Outcome: native.AskDenied, Note: got.Note}, nil
	default:
		return native.AskAnswer{Outcome: native.AskExpired, Note: got.Note}, nil
	}
}

// askMock puts the mock's !ask to a person as a native run's command is
// put (askCommand), so tests can ask without a model.
func (b *Backend) askMock(ctx context.Context, q mock.Question) (bool, string, error) {
	a, err := b.askCommand(ctx, native.AskRequest{
		Command: q.Command, Argv: strings.Fields(q.Command), Folder: q.Folder,
		AgentID: q.AgentID, TeamID: q.TeamID, TaskID: q.TaskID, RunID: q.RunID,
	})
	if err != nil {
		return false, "", err
	}
	return a.Outcome == native.AskAllowed, a.Note, nil
}

// nativeConfig is an agent's config as the adapter reads it: the agents
// service stores and validates native.AgentConfig itself, so nothing is
// copied here, and an ad-hoc run (no agent) or an unknown agent gets the
// same native.DefaultConfig a stored agent without overrides has.
func (b *Backend) nativeConfig(ctx context.Context, agentID string) native.AgentConfig {
	if b.Agents == nil || agentID == "" {
		return native.DefaultConfig()
	}
	c, err := b.Agents.Load(ctx, agentID)
	if err != nil {
		if !errors.Is(err, agents.ErrNotFound) {
			b.log.Warn("agent config not loaded; running with the default", "agent", agentID, "err", err)
		}
		return native.DefaultConfig()
	}
	return c
}

// nativeRouter resolves the primary's and the fallbacks' keys and routes
// over them (keyless Ollama always counts).
func (b *Backend) nativeRouter(ctx context.Context, cfg native.AgentConfig, getenv func(string) string) (llm.Provider, error) {
	key := func(provider, envVar string) string {
		if envVar == "" {
			p, _ := config.ProviderByID(provider)
			envVar = p.EnvVar
		}
		if envVar == "" {
			return ""
		}
		k, _ := b.Vault.Resolve(ctx, string(executor.Native), envVar)
		return k
	}
	cands := []llm.Candidate{{Provider: cfg.PrimaryProvider, Model: cfg.PrimaryModel, Key: key(cfg.PrimaryProvider, cfg.EnvVar)}}
	for _, f := range cfg.Fallbacks {
		cands = append(cands, llm.Candidate{Provider: f.Provider, Model: f.Model, Key: key(f.Provider, "")})
	}
	r, err := llm.NewRouter(cands, getenv)
	if err != nil {
		return nil, err
	}
	return routed{r}, nil
}

// nativeReady is the runtime's health: any provider key present, or an
// Ollama base URL, as the catalog counts them. No network call.
func (b *Backend) nativeReady() bool {
	if b.Vault == nil {
		return false
	}
	for _, p := range config.Providers {
		slot := p.EnvVar
		if p.Keyless() {
			slot = p.BaseURLEnv
		}
		if b.Vault.Presence(string(executor.Native), slot) != vault.SourceNone {
			return true
		}
	}
	return false
}

// routed presents llm's Router as the provider the native loop calls: it
// reports who served each turn and takes model changes.
type routed struct{ r *llm.Router }

func (p routed) ID() string        { return p.r.Current().Provider }
func (p routed) SetModel(m string) { p.r.SetModel(m) }

func (p routed) Stream(ctx context.Context, req llm.Request) (llm.Stream, error) {
	s, err := p.r.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	return servedStream{s}, nil
}

type servedStream struct{ *llm.RoutedStream }

func (s servedStream) ServedBy() (provider, model string) {
	v := s.Served()
	return v.Provider, v.Model
}
