package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// textOf joins a stored log's assistant text and lists its kinds.
func textOf(t *testing.T, e *env, id string) (string, []string) {
	t.Helper()
	var b strings.Builder
	var kinds []string
	for _, ev := range e.storedLog(t, id) {
		kinds = append(kinds, string(ev.Kind))
		if ev.Kind == executor.KindTextDelta {
			b.WriteString(ev.Text)
		}
	}
	return b.String(), kinds
}

// storedLog is a run's stored events, seqs increasing (not necessarily
// consecutive: compaction merges deltas), ending with done.
func (e *env) storedLog(t *testing.T, id string) []executor.Event {
	t.Helper()
	var out []executor.Event
	for i, ev := range e.rawEvents(t, id) {
		if i > 0 && ev.Seq <= out[i-1].Seq {
			t.Fatalf("seq %d after %d", ev.Seq, out[i-1].Seq)
		}
		out = append(out, ev)
	}
	if len(out) == 0 || out[len(out)-1].Kind != executor.KindDone {
		t.Fatalf("log does not end with done: %+v", out)
	}
	return out
}

func (e *env) rawEvents(t *testing.T, id string) []executor.Event {
	t.Helper()
	rows, err := e.st.ListEvents(context.Background(), id, 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]executor.Event, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Data, &out[i]); err != nil || out[i].Seq != r.Seq {
			t.Fatalf("row %d: %v", r.Seq, err)
		}
	}
	return out
}

// A run whose deltas are over the size budget is compacted after it ends,
// keeping its text, tool calls and done; one under it is left alone.
func TestRetentionCompactsALargeRunWhenItEnds(t *testing.T) {
	e := setup(t, Options{RetentionGrace: 50 * time.Millisecond})
	ctx := context.Background()
	if err := e.st.SetRetention(ctx, store.Retention{CompactAfter: 24 * time.Hour, CompactOverBytes: 50_000}, 1); err != nil {
		t.Fatal(err)
	}
	big := e.run(t, executor.Mock, "!ok Hello\n!loop 1\n!flood 2000\n!ok bye")
	small := e.run(t, executor.Mock, "!flood 20")
	want := "Hello" + strings.Repeat("x", 2000) + "bye"
	testkit.Eventually(t, 20*time.Second, "the large run's compaction", func() bool { return len(e.rawEvents(t, big.ID)) < 10 })
	text, kinds := textOf(t, e, big.ID)
	if text != want {
		t.Fatalf("text changed: %q", text)
	}
	if got := strings.Join(kinds, " "); got != "status text-delta tool-call tool-result text-delta done" {
		t.Fatalf("kinds: %s", got)
	}
	if n := len(e.rawEvents(t, small.ID)); n != 22 {
		t.Fatalf("a run under the budget was compacted: %d events", n)
	}
}

// The size rule waits while someone streams the run, so a reader paging
// through the log never sees it rewritten under it.
func TestRetentionWaitsForReadersToLeave(t *testing.T) {
	e := setup(t, Options{RetentionGrace: 30 * time.Millisecond})
	ctx := context.Background()
	if err := e.st.SetRetention(ctx, store.Retention{CompactOverBytes: 1000}, 1); err != nil {
		t.Fatal(err)
	}
	h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!flood 200"})
	if err != nil {
		t.Fatal(err)
	}
	_, stopWatching := e.sup.Watch(h.ID)
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(e.rawEvents(t, h.ID)); n != 202 {
		t.Fatalf("compacted while watched: %d events", n)
	}
	stopWatching()
	testkit.Eventually(t, 20*time.Second, "the compaction", func() bool { return len(e.rawEvents(t, h.ID)) == 3 })
}

// Runs that ended longer ago than the age budget are compacted by the
// periodic pass.
func TestRetentionCompactsOldRuns(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixMilli())
	clock := func() time.Time { return time.UnixMilli(now.Load()) }
	e := setup(t, Options{Now: clock, RetentionEvery: 30 * time.Millisecond})
	ctx := context.Background()
	if err := e.st.SetRetention(ctx, store.Retention{CompactAfter: time.Hour}, 1); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, executor.Mock, "!flood 300")
	time.Sleep(150 * time.Millisecond) // passes run; the run is too recent
	if n := len(e.rawEvents(t, r.ID)); n != 302 {
		t.Fatalf("compacted too early: %d events", n)
	}
	now.Add((2 * time.Hour).Milliseconds())
	testkit.Eventually(t, 20*time.Second, "the age pass", func() bool { return len(e.rawEvents(t, r.ID)) == 3 })
	if text, _ := textOf(t, e, r.ID); text != strings.Repeat("x", 300) {
		t.Fatalf("%q", text)
	}
}

func TestRateLimitedLogKeepsOneLinePerFailurePerWindow(t *testing.T) {
	logs := &countingHandler{}
	var now atomic.Int64
	h := newRateLimited(logs, 10*time.Second, func() time.Time { return time.Unix(now.Load(), 0) })
	log := slog.New(h)
	full := errors.New("database or disk is full (13)")
	for i := 0; i < 1000; i++ {
		log.Error("run ledger write failed", "err", fmt.Errorf("append events run-%d/%d..: %w", i, i, full), "run", i)
	}
	log.Warn("run ledger write failed", "err", full) // another level is another line
	log.Error("other failure", "err", full)          // another message too
	log.Error("no error attribute")                  // never limited
	log.Error("no error attribute")
	log.Info("stopping run", "err", full) // below Warn: never limited
	if logs.n != 5 {
		t.Fatalf("%d lines: %q", logs.n, logs.lines)
	}
	now.Add(11)
	log.With("err", full).Error("run ledger write failed")
	if logs.n != 6 {
		t.Fatalf("%d lines after the window", logs.n)
	}
	// Memory stays bounded by distinct failures.
	for i := 0; i < 10*maxRateKeys; i++ {
		log.Error("distinct", "err", fmt.Errorf("failure %d", i))
	}
	if n := len(h.state.seen); n > maxRateKeys {
		t.Fatalf("%d keys kept", n)
	}
}
