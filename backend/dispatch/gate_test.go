package dispatch

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// gateRig is a door over a real database, quota ledger and agents, with an
// OpenClaw Gateway double as the only runtime that can be ready.
type gateRig struct {
	d   *Door
	now time.Time
	oc  *gatewayDouble
}

func newGateRig(t *testing.T) *gateRig {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &gateRig{now: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), oc: &gatewayDouble{}}
	r.d = &Door{Registry: executor.NewRegistry(), Store: st}
	if err := r.d.Registry.Register(r.oc); err != nil {
		t.Fatal(err)
	}
	events := bus.New[quota.Event](0)
	t.Cleanup(events.Close)
	r.d.Quota, err = quota.New(ctx, quota.Options{Store: st, Events: events, Name: r.d.RuntimeName, Now: func() time.Time { return r.now }})
	if err != nil {
		t.Fatal(err)
	}
	r.d.Agents = agents.New(agents.Options{Store: st})
	return r
}

// agent makes an agent on runtime rt whose fallback is fb ("" for none).
func (r *gateRig) agent(t *testing.T, rt, fb string) agents.Agent {
	t.Helper()
	name := "Coder " + rt + " " + fb
	in := agents.Input{Name: &name, Runtime: &rt}
	if fb != "" {
		in.FallbackRuntime = agents.Optional[string]{Set: true, Value: &fb}
	}
	a, err := r.d.Agents.Create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// reject records rt's five-hour window as rejected until an hour from now.
func (r *gateRig) reject(rt string) {
	r.d.Quota.Observe(context.Background(), rt, executor.QuotaWindow{
		Window: "five_hour", Status: "rejected",
		ResetsAt: r.now.Add(time.Hour).UnixMilli(),
	})
}

// The gate lets work through while its window holds, routes it to the
// agent's fallback while that runtime is ready (OpenClaw: while its Gateway
// is connected), and otherwise defers it until the reset, saying so.
func TestGateAdmitsRoutesOrDefers(t *testing.T) {
	r := newGateRig(t)
	ctx := context.Background()
	g := r.d.Gate()
	ag := r.agent(t, "claude-code", "openclaw")
	w := supervisor.QuotaWork{
		Runtime: "claude-code", AgentID: ag.ID, TaskID: "task-1", Title: "Read the logs",
		Message: "use sk-ant-api03-" + strings.Repeat("x", 40),
	}

	if route, why, err := g.Admit(ctx, w); route != "" || why != "" || err != nil {
		t.Fatalf("an open window admits the work as asked: %q %q %v", route, why, err)
	}

	r.reject("claude-code")
	r.oc.connected = true
	route, why, err := g.Admit(ctx, w)
	if err != nil || route != executor.OpenClaw || !strings.Contains(why, "routed to") {
		t.Fatalf("a spent window routes to the connected fallback: %q %q %v", route, why, err)
	}

	r.oc.connected = false
	route, _, err = g.Admit(ctx, w)
	var refusal *supervisor.Refusal
	if route != "" || !errors.As(err, &refusal) || refusal.Reason != supervisor.ReasonQuota || refusal.DeferralID == "" ||
		refusal.Until != r.now.Add(time.Hour).UnixMilli() || !strings.Contains(refusal.Msg, "deferred until then") {
		t.Fatalf("with the fallback away the work waits for the reset: %q %v", route, err)
	}
	held, err := r.d.Quota.Deferred(ctx)
	if err != nil || len(held) != 1 || held[0].TaskID != "task-1" || strings.Contains(held[0].Message, "sk-ant-") {
		t.Fatalf("one deferral, its message scrubbed of keys: %+v %v", held, err)
	}
}

// A fallback that is the agent's own runtime, or none, never routes.
func TestGateNeverRoutesToTheSameRuntime(t *testing.T) {
	r := newGateRig(t)
	r.oc.connected = true
	r.reject("openclaw")
	ag := r.agent(t, "openclaw", "")
	w := supervisor.QuotaWork{Runtime: "openclaw", AgentID: ag.ID, TaskID: "task-2", Title: "Say hello"}
	route, _, err := r.d.Gate().Admit(context.Background(), w)
	var refusal *supervisor.Refusal
	if route != "" || !errors.As(err, &refusal) || refusal.DeferralID == "" {
		t.Fatalf("no other runtime to route to: the task is deferred: %q %v", route, err)
	}
}
