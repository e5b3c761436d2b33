package native

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/mcp"
)

// instantProvider answers every turn at once from prebuilt events, so a
// benchmark measures the loop, not the model: a text+read_file turn while
// the conversation is shorter than turns, then a final text. With
// idle set, a conversation's second request never answers (it blocks
// until the run's context ends) and is signalled on idle.
type instantProvider struct {
	turns int
	idle  chan struct{}
}

var (
	benchToolTurn = []llm.Event{
		{Kind: llm.EvText, Text: "Reading the file."},
		{Kind: llm.EvToolCall, Call: &llm.ToolCall{ID: "toolu_b", Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)}},
		{Kind: llm.EvDone, Usage: llm.Usage{InputTokens: 1200, OutputTokens: 40}, StopReason: "tool_use"},
	}
	benchFinal = []llm.Event{
		{Kind: llm.EvText, Text: "done"},
		{Kind: llm.EvDone, Usage: llm.Usage{InputTokens: 1300, OutputTokens: 5}, StopReason: "end_turn"},
	}
)

func (*instantProvider) ID() string { return "anthropic" }

func (p *instantProvider) Stream(ctx context.Context, req llm.Request) (llm.Stream, error) {
	turn := (len(req.Messages) + 1) / 2 // 1 user message, then an assistant/user pair per turn
	if p.idle != nil && turn > 1 {
		p.idle <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if turn < p.turns {
		return &instantStream{evs: benchToolTurn}, nil
	}
	return &instantStream{evs: benchFinal}, nil
}

type instantStream struct {
	evs []llm.Event
	i   int
}

func (s *instantStream) Next() (llm.Event, bool) {
	if s.i >= len(s.evs) {
		return llm.Event{}, false
	}
	s.i++
	return s.evs[s.i-1], true
}
func (*instantStream) Err() error   { return nil }
func (*instantStream) Close() error { return nil }

// benchAdapter is the adapter over p with the default config (maxTurns
// raised to fit), transcripts kept under home ("" keeps none).
func benchAdapter(b *testing.B, p llm.Provider, hub *mcp.Hub, home string) (*Adapter, string) {
	b.Helper()
	cfg := DefaultConfig()
	cfg.MaxTurns = 100
	a := New(Options{
		Home: home, Hub: hub,
		Config:    func(context.Context, string) AgentConfig { return cfg },
		Providers: func(context.Context, AgentConfig) (llm.Provider, error) { return p, nil },
		Now:       func() time.Time { return fixedNow },
	})
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return a, dir
}

func benchStart(b *testing.B, a *Adapter, ctx context.Context, i int, req executor.StartRequest) executor.Run {
	req.RunID = executor.RunID("bench-" + strconv.Itoa(i))
	req.AgentID, req.Message = "agent-bench", "read a.txt and report"
	req.Emitter = executor.NewEmitter(req.RunID, 0)
	r, err := a.Start(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkTurnOverhead is the loop's own cost per turn: runs of
// turnsPerRun turns (a text+read_file turn answered by its tool result,
// then a final answer) against a provider that answers at once, events
// drained as the supervisor would. Per-run work (tools, session, the
// transcript written at the end) is amortised over the run's turns;
// no-transcript isolates the loop from that one file write per run.
func BenchmarkTurnOverhead(b *testing.B) {
	b.Run("transcript", func(b *testing.B) { benchTurns(b, b.TempDir()) })
	b.Run("no-transcript", func(b *testing.B) { benchTurns(b, "") })
}

func benchTurns(b *testing.B, home string) {
	const turnsPerRun = 8
	a, dir := benchAdapter(b, &instantProvider{turns: turnsPerRun}, nil, home)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	turns := 0
	for i := 0; turns < b.N; i++ {
		r := benchStart(b, a, ctx, i, executor.StartRequest{WorkDir: dir})
		var last executor.Event
		for ev := range r.Events() {
			last = ev
		}
		if last.Kind != executor.KindDone || last.Reason != executor.DoneSuccess {
			b.Fatalf("run ended %+v", last)
		}
		turns += turnsPerRun
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(turns), "µs/turn")
}

// BenchmarkIdleConversationMemory is what a live, idle conversation
// holds. The adapter keeps nothing of a finished conversation in memory
// (its transcript is on disk), so the idle conversation measured is a
// live run that has done one read_file turn and waits on a provider that
// never answers. Conversations are started in batches of up to
// batchSize; B/conv is the Go heap delta (after GC) per conversation,
// stackB/conv the goroutine stacks (the run's and the host's drain).
func BenchmarkIdleConversationMemory(b *testing.B) {
	b.Run("files", func(b *testing.B) { benchIdle(b, false) })
	b.Run("files+mcp", func(b *testing.B) { benchIdle(b, true) })
}

func benchIdle(b *testing.B, withHub bool) {
	const batchSize = 200
	var hub *mcp.Hub
	if withHub {
		h, err := mcp.New(mcp.Options{Token: "bench-attach-token-0123456789", BindingKey: []byte("bench-binding-key-0123456789")})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		hub = h
	}
	p := &instantProvider{turns: 2, idle: make(chan struct{}, batchSize)}
	a, dir := benchAdapter(b, p, hub, b.TempDir())
	var heap, stack float64
	var conv int
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(batchSize, b.N-done)
		ctx, cancel := context.WithCancel(context.Background())
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		runs := make([]executor.Run, n)
		var drained sync.WaitGroup
		for i := range runs {
			runs[i] = benchStart(b, a, ctx, done+i, executor.StartRequest{WorkDir: dir, TeamID: "team-bench"})
			drained.Add(1)
			go func(r executor.Run) {
				defer drained.Done()
				for range r.Events() {
				}
			}(runs[i])
		}
		for range n {
			<-p.idle
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap += float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
		stack += float64(int64(after.StackInuse) - int64(before.StackInuse))
		conv += n
		b.StopTimer()
		for _, r := range runs {
			if err := r.Abort(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
				b.Fatal(err)
			}
		}
		drained.Wait()
		cancel()
		b.StartTimer()
		done += n
	}
	b.StopTimer()
	b.ReportMetric(heap/float64(conv), "B/conv")
	b.ReportMetric(stack/float64(conv), "stackB/conv")
}
