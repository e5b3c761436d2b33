package dispatch

import (
	"context"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

// gatewayDouble is an OpenClaw adapter whose Gateway is connected or not.
type gatewayDouble struct {
	executor.Adapter
	connected bool
}

func (gatewayDouble) ID() executor.ID { return executor.OpenClaw }
func (gatewayDouble) Name() string    { return "OpenClaw" }
func (g gatewayDouble) Ready() bool   { return g.connected }

// OpenClaw has no catalog entry: its Gateway's connection decides, and a
// runtime the door has no catalog for is not available, in words.
func TestReadyOpenClawFollowsItsGateway(t *testing.T) {
	ctx := context.Background()
	for _, connected := range []bool{true, false} {
		d := &Door{Registry: executor.NewRegistry()}
		if err := d.Registry.Register(gatewayDouble{connected: connected}); err != nil {
			t.Fatal(err)
		}
		ok, why := d.Ready(ctx, "openclaw")
		if ok != connected || (!ok && why != "the OpenClaw Gateway is not connected") {
			t.Fatalf("openclaw with its Gateway connected=%v: ready %v %q", connected, ok, why)
		}
	}
	d := &Door{Registry: executor.NewRegistry()}
	if ok, why := d.Ready(ctx, "openclaw"); ok || why != "the OpenClaw Gateway is not connected" {
		t.Fatalf("openclaw not registered: %v %q", ok, why)
	}
	if ok, why := d.Ready(ctx, "claude-code"); ok || why != "runtime claude-code is not available" {
		t.Fatalf("no catalog: %v %q", ok, why)
	}
}
