package app

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/quota"
)

func TestQuotaTipFollowsTheLedger(t *testing.T) {
	events := bus.New[quota.Event](0)
	var line atomic.Value
	line.Store("Claude Code five-hour window at 42 %, resets 14:20")
	got := make(chan string, 8)
	tip := startQuotaTip(events, func() string { return line.Load().(string) }, func(s string) { got <- s })
	defer tip.close()
	want := func(s string) {
		t.Helper()
		select {
		case g := <-got:
			if g != s {
				t.Fatalf("tooltip %q, want %q", g, s)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the tooltip was not set to %q", s)
		}
	}
	want("Claude Code five-hour window at 42 %, resets 14:20")
	line.Store("Claude Code five-hour window at 97 %, resets 14:20")
	events.PublishMust(quota.Event{Kind: "window", Runtime: "claude-code"})
	want("Claude Code five-hour window at 97 %, resets 14:20")
}
