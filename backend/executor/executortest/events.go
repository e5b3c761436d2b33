package executortest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// The event helpers every adapter's own tests use, so none keeps a copy.

// Collect reads a run's events until the stream closes, failing the test
// (with the events so far) if ctx ends first.
func Collect(tb testing.TB, ctx context.Context, run executor.Run) []executor.Event {
	tb.Helper()
	var out []executor.Event
	for {
		select {
		case ev, ok := <-run.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-ctx.Done():
			tb.Fatalf("stream did not close: %d events so far: %s", len(out), Describe(out))
			return out
		}
	}
}

// CollectWithin is Collect bounded by a duration.
func CollectWithin(tb testing.TB, d time.Duration, run executor.Run) []executor.Event {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return Collect(tb, ctx, run)
}

// OfKind is the events of one kind, in order.
func OfKind(evs []executor.Event, k executor.Kind) []executor.Event {
	var out []executor.Event
	for _, ev := range evs {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// Done is the stream's last event, failing the test unless it is a Done.
func Done(tb testing.TB, evs []executor.Event) executor.Event {
	tb.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Kind != executor.KindDone {
		tb.Fatalf("no done: %s", Describe(evs))
	}
	return evs[len(evs)-1]
}

// Kinds is the stream's shape, for comparing with an expected string: each
// event's kind, with the phase of a status, the channel of a text delta
// and the reason of a done ("status/running text-delta/assistant
// done/success").
func Kinds(evs []executor.Event) string {
	s := make([]string, 0, len(evs))
	for _, e := range evs {
		k := string(e.Kind)
		switch e.Kind {
		case executor.KindStatus:
			k += "/" + string(e.Phase)
		case executor.KindTextDelta:
			k += "/" + string(e.Channel)
		case executor.KindDone:
			k += "/" + string(e.Reason)
		}
		s = append(s, k)
	}
	return strings.Join(s, " ")
}

// Describe is the stream for a failure message: each event's kind with
// what a reader needs to see of it (text, tool and output, reason and
// summary, error, phase and detail).
func Describe(evs []executor.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(string(e.Kind))
		switch e.Kind {
		case executor.KindTextDelta:
			fmt.Fprintf(&b, "(%q)", e.Text)
		case executor.KindToolCall, executor.KindToolResult:
			fmt.Fprintf(&b, "(%s %s)", e.Name, e.Output)
		case executor.KindDone:
			fmt.Fprintf(&b, "(%s: %s)", e.Reason, e.Summary)
		case executor.KindError:
			fmt.Fprintf(&b, "(%s)", e.Message)
		case executor.KindStatus:
			fmt.Fprintf(&b, "(%s %s)", e.Phase, e.Detail)
		}
		b.WriteString(" ")
	}
	return b.String()
}
