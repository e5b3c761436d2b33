package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/vault"
)

// openClawService is the OpenClaw runtime as the backend wires it: the
// adapter's Service (settings precedence, the card, MCP registration,
// the change broker) seen through the API's types. It adds no logic: only
// the conversions the import table forces, since api may not import
// adapters.
type openClawService struct {
	svc      *openclaw.Service
	activity *bus.Broker[api.OpenClawActivity]
}

// openOpenClaw builds the openclaw runtime: a device identity under
// <home>/runtimes/openclaw, the Gateway client (connecting in the
// background once a URL is set), exec approvals relayed through the
// approvals queue, and the activity watcher. Backend.Close stops it all
// (after the supervisor has aborted live runs).
func openOpenClaw(b *Backend, opts Options) executor.Adapter {
	var tokens openclaw.TokenStore
	if b.Vault != nil {
		tokens = openClawTokens{b.Vault}
	}
	svc := openclaw.NewService(openclaw.ServiceOptions{
		IdentityDir: config.RuntimeHome(b.Config.Home, string(executor.OpenClaw)),
		Version:     opts.Version, Log: b.log.With("part", "openclaw"), Getenv: opts.Getenv,
		Settings: b.Store, Tokens: tokens,
		// Read when used: the approvals queue and the hub are built after
		// the runtimes.
		Ask: func(ctx context.Context, q openclaw.Question, ttl time.Duration) (bool, error) {
			if b.Approvals == nil {
				return false, errors.New("no approvals queue")
			}
			res, err := b.Approvals.Ask(ctx, approval.Request{
				Kind: approval.KindCommand, Title: q.Title, Command: q.Command,
				Folder: q.Folder, Reason: q.Reason, Risk: q.Risk, RunID: q.RunID, AgentID: q.AgentID,
			}, ttl)
			return err == nil && res.Allowed(), err
		},
		Hub:     func() *mcp.Hub { return b.MCP },
		BaseURL: b.BaseURL,
		Changed: func() { b.runtimesChanged.Publish(struct{}{}) },
	})
	s := &openClawService{svc: svc, activity: openclaw.ActivityFeed(svc, toAPIActivity)}
	openclaw.WakeOn(svc, b.Supervisor.Updates.Subscribe(64), func(r store.Run) bool { return r.RuntimeID == string(executor.OpenClaw) })
	svc.Start()
	b.openClaw = s
	return svc.Adapter()
}

// openClawTokens keeps the Gateway token in the vault (slot
// CLAWBOO_OPENCLAW_TOKEN), resolved in the vault's order: the
// environment, the vault, then OpenClaw's own .env.
type openClawTokens struct{ v *vault.Vault }

func (t openClawTokens) Resolve(ctx context.Context) (string, string) {
	tok, src := t.v.Resolve(ctx, string(executor.OpenClaw), openclaw.TokenSlot)
	switch src {
	case vault.SourceEnv, vault.SourceVault, vault.SourceOpenClaw:
		return tok, string(src)
	}
	return "", ""
}

func (t openClawTokens) Set(ctx context.Context, tok string) error {
	return settingsErr(t.v.Set(ctx, openclaw.TokenSlot, tok))
}

func (t openClawTokens) Delete(ctx context.Context) error {
	return settingsErr(t.v.Delete(ctx, openclaw.TokenSlot))
}

// settingsErr marks the vault's refusal of a token as the person's
// mistake.
func settingsErr(err error) error {
	if errors.Is(err, vault.ErrInvalid) {
		return fmt.Errorf("%w: %v", openclaw.ErrSettings, err)
	}
	return err
}

// openClawRefused keeps the service's message and lets the API see its
// 400 sentinel.
type openClawRefused struct{ error }

func (e openClawRefused) Is(target error) bool { return target == api.ErrOpenClawSettings }
func (e openClawRefused) Unwrap() error        { return e.error }

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
	if s != nil {
		s.svc.Close()
	}
}

// reregisterMCP: see openclaw.Service.ReregisterMCP.
func (s *openClawService) reregisterMCP(ctx context.Context) { s.svc.ReregisterMCP(ctx) }

// Settings implements api.OpenClawService.
func (s *openClawService) Settings(ctx context.Context) api.OpenClawSettings {
	return api.OpenClawSettings(s.svc.Settings(ctx))
}

// SaveSettings implements api.OpenClawService.
func (s *openClawService) SaveSettings(ctx context.Context, u api.OpenClawSettingsUpdate) (api.OpenClawSettings, error) {
	out, err := s.svc.SaveSettings(ctx, openclaw.SettingsUpdate(u))
	if errors.Is(err, openclaw.ErrSettings) {
		err = openClawRefused{err}
	}
	return api.OpenClawSettings(out), err
}

// Status implements api.OpenClawService.
func (s *openClawService) Status(ctx context.Context) api.OpenClawStatus {
	return toAPIStatus(s.svc.Status(ctx))
}

// SubscribeStatus implements api.OpenClawService.
func (s *openClawService) SubscribeStatus() *bus.Subscription[struct{}] {
	return s.svc.SubscribeStatus()
}

// RegisterMCP implements api.OpenClawService.
func (s *openClawService) RegisterMCP(ctx context.Context, baseURL string) (api.OpenClawRegistered, error) {
	res, err := s.svc.RegisterMCP(ctx, baseURL)
	return api.OpenClawRegistered(res), err
}

// Activity implements api.OpenClawService.
func (s *openClawService) Activity() []api.OpenClawActivity {
	recent := s.svc.Activity()
	out := make([]api.OpenClawActivity, len(recent))
	for i, a := range recent {
		out[i] = toAPIActivity(a)
	}
	return out
}

// SubscribeActivity implements api.OpenClawService.
func (s *openClawService) SubscribeActivity() *bus.Subscription[api.OpenClawActivity] {
	return s.activity.Subscribe(64)
}

// The conversions are plain struct conversions (same fields, tags
// ignored); TestOpenClawJSONIsTheAdapters keeps the tags the same too.
func toAPIActivity(a openclaw.Activity) api.OpenClawActivity { return api.OpenClawActivity(a) }

func toAPIStatus(st openclaw.Status) api.OpenClawStatus {
	out := api.OpenClawStatus{
		Connection: api.OpenClawConnection(st.Connection), Settings: api.OpenClawSettings(st.Settings),
		Health: st.Health, DefaultAgent: st.DefaultAgent, Agents: make([]api.OpenClawAgent, len(st.Agents)),
		LiveRuns: st.LiveRuns, Approvals: st.Approvals, MCPServers: st.MCPServers, MCPRegistered: st.MCPRegistered,
	}
	for i, a := range st.Agents {
		out.Agents[i] = api.OpenClawAgent(a)
	}
	return out
}

var _ api.OpenClawService = (*openClawService)(nil)
