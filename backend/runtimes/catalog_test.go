package runtimes

import (
	"context"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/executor"
)

func TestDeriveState(t *testing.T) {
	cases := []struct {
		installed bool
		kind      AuthKind
		cred, in  bool
		want      ConnectionState
	}{
		{false, AuthAPIKey, true, true, StateNotInstalled},
		{true, AuthNone, false, false, StateReady},
		{true, AuthAPIKey, false, false, StateNeedsAuth},
		{true, AuthAPIKey, true, false, StateReady},
		{true, AuthOAuth, true, false, StateNeedsLogin},
		{true, AuthOAuth, false, true, StateReady},
	}
	for _, c := range cases {
		if got := DeriveState(c.installed, c.kind, c.cred, c.in); got != c.want {
			t.Errorf("%+v: got %s", c, got)
		}
	}
}

// hung is an adapter whose health never answers.
type hung struct{ executor.Adapter }

func (hung) ID() executor.ID                     { return executor.Hermes }
func (hung) Name() string                        { return "Hermes" }
func (hung) Capabilities() executor.Capabilities { return executor.Capabilities{Models: []string{}} }
func (hung) Health(ctx context.Context) executor.Health {
	<-ctx.Done()
	return executor.Health{OK: true}
}

func TestListProbesConcurrentlyAndNeverListsMockAsAvailable(t *testing.T) {
	reg := executor.NewRegistry()
	_ = reg.Register(mock.New())
	_ = reg.Register(hung{})
	start := time.Now()
	l := NewCatalog(reg).List(context.Background())
	if el := time.Since(start); el > executor.HealthTimeout+time.Second {
		t.Fatalf("listing took %v", el)
	}
	if len(l.Runtimes) != 2 {
		t.Fatalf("%+v", l.Runtimes)
	}
	byID := map[executor.ID]Entry{}
	for _, e := range l.Runtimes {
		byID[e.ID] = e
	}
	if m := byID[executor.Mock]; !m.Health.OK || !m.Installed || m.ConnectionState != StateReady || m.ParticipantKind != "agent" {
		t.Fatalf("mock %+v", m)
	}
	if h := byID[executor.Hermes]; h.Health.OK || h.Health.Message != "health check timed out" || h.ConnectionState != StateNotInstalled {
		t.Fatalf("hermes %+v", h)
	}
	ids := map[executor.ID]bool{}
	for _, d := range l.Available {
		ids[d.ID] = true
	}
	if ids[executor.Mock] || !ids[executor.ClaudeCode] || !ids[executor.Codex] || !ids[executor.Hermes] || !ids[executor.Native] || ids[executor.OpenClaw] {
		t.Fatalf("available %v", ids)
	}
}
