package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// ev is a stored event as the executor encodes it (the fields these tests use).
type ev struct {
	RunID   string `json:"runId"`
	Seq     int64  `json:"seq"`
	TS      int64  `json:"ts"`
	Kind    string `json:"kind"`
	Text    string `json:"text,omitempty"`
	Channel string `json:"channel,omitempty"`
	Name    string `json:"name,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// seedRun writes a run whose log is the given events (seqs 1..n), finished
// when final is set.
func seedRun(t testing.TB, s *Store, id string, final bool, evs []ev) {
	t.Helper()
	err := s.WriteBatch(context.Background(), func(b *Batch) error {
		nr := NewRun{ID: id, RuntimeID: "clawboo-mock", CreatedAt: 1}
		if final {
			nr.Final = &RunFinish{ID: id, Status: RunSucceeded, DoneReason: "success", LastSeq: int64(len(evs)), EndedAt: 2}
		}
		if err := b.InsertRun(nr); err != nil {
			return err
		}
		rows := make([]NewEvent, len(evs))
		for i := range evs {
			evs[i].RunID, evs[i].Seq, evs[i].TS = id, int64(i+1), int64(i+1)
			data, _ := json.Marshal(evs[i])
			rows[i] = NewEvent{RunID: id, Seq: int64(i + 1), Kind: evs[i].Kind, Data: data}
		}
		return b.AppendEvents(rows)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func storedLog(t *testing.T, s *Store, id string) []ev {
	t.Helper()
	rows, err := s.ListEvents(context.Background(), id, 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]ev, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Data, &out[i]); err != nil || out[i].Seq != r.Seq || out[i].Kind != r.Kind {
			t.Fatalf("row %d: %s %v", r.Seq, r.Data, err)
		}
		if i > 0 && r.Seq <= out[i-1].Seq {
			t.Fatalf("seqs not increasing at %d", r.Seq)
		}
	}
	return out
}

func text(s string) ev      { return ev{Kind: "text-delta", Text: s, Channel: "assistant"} }
func reasoning(s string) ev { return ev{Kind: "text-delta", Text: s, Channel: "reasoning"} }

func TestCompactRunMergesDeltasAndKeepsEverythingElse(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	seedRun(t, s, "r", true, []ev{
		{Kind: "status", Name: "init"},
		text("He"), text("llo"), reasoning("hm"), reasoning("m"), text(","),
		{Kind: "tool-call", Name: "build"},
		{Kind: "tool-result", Name: "build"},
		text(" wor"), text("ld"),
		{Kind: "cost"},
		{Kind: "error"},
		text("!"),
		{Kind: "done", Reason: "success"},
	})
	st, err := s.CompactRun(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 1 || st.Deleted != 6 || st.Written != 3 || st.BytesAfter >= st.BytesBefore {
		t.Fatalf("%+v", st)
	}
	type k struct {
		seq        int64
		kind, text string
	}
	var got []k
	for _, e := range storedLog(t, s, "r") {
		got = append(got, k{e.Seq, e.Kind, e.Text})
	}
	want := []k{
		{1, "status", ""},
		{3, "text-delta", "Hello"},
		{5, "text-delta", "hmm"},
		{6, "text-delta", ","},
		{7, "tool-call", ""},
		{8, "tool-result", ""},
		{10, "text-delta", " world"},
		{11, "cost", ""},
		{12, "error", ""},
		{13, "text-delta", "!"},
		{14, "done", ""},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	// A second pass finds nothing to do.
	if st, err := s.CompactRun(ctx, "r"); err != nil || st != (CompactStats{}) {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestCompactRunAcrossChunksAndTextCap(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	defer func(c, m int) { compactChunk, maxMergedText = c, m }(compactChunk, maxMergedText)
	compactChunk, maxMergedText = 64, 3000
	n, size := 3*compactChunk+10, 100 // more rows than a few chunks, more text than one merged event
	var evs []ev
	var all strings.Builder
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("%0*d", size, i)
		all.WriteString(p)
		evs = append(evs, text(p))
	}
	evs = append(evs, ev{Kind: "done", Reason: "success"})
	seedRun(t, s, "big", true, evs)
	st, err := s.CompactRun(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	log := storedLog(t, s, "big")
	if st.Deleted != int64(n) || st.Written != int64(len(log)-1) || st.Runs != 1 {
		t.Fatalf("stats %+v for %d deltas into %d events", st, n, len(log)-1)
	}
	var joined strings.Builder
	for _, e := range log[:len(log)-1] {
		if e.Kind != "text-delta" || len(e.Text) > maxMergedText {
			t.Fatalf("seq %d: %s of %d bytes", e.Seq, e.Kind, len(e.Text))
		}
		joined.WriteString(e.Text)
	}
	if joined.String() != all.String() {
		t.Fatalf("text changed: %d bytes, want %d", joined.Len(), all.Len())
	}
	wantEvents := (n*size+maxMergedText-1)/maxMergedText + 1
	if len(log) != wantEvents || log[len(log)-1].Kind != "done" || log[len(log)-1].Seq != int64(n+1) || log[len(log)-2].Seq != int64(n) {
		t.Fatalf("%d events (want %d), last %+v", len(log), wantEvents, log[len(log)-1])
	}
}

func TestCompactRunLeavesLiveRunsAlone(t *testing.T) {
	s := open(t)
	seedRun(t, s, "live", false, []ev{text("a"), text("b")})
	if _, err := s.CompactRun(context.Background(), "live"); !errors.Is(err, ErrRunLive) {
		t.Fatal(err)
	}
	if got := storedLog(t, s, "live"); len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	if _, err := s.CompactRun(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

// The age rule takes finished runs old enough, oldest end first, each
// once; a run still live or ended later holds back none of the others.
func TestCompactOldSkipsLiveAndRecentRunsWithoutStalling(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	seedRun(t, s, "0", false, []ev{text("1"), text("2")}) // live, and first in id order
	for _, id := range []string{"a", "b", "c"} {
		seedRun(t, s, id, true, []ev{text("1"), text("2"), {Kind: "done"}})
	}
	if _, err := s.Writer().Exec(`UPDATE runs SET ended_at = 100 WHERE id = 'b'`); err != nil {
		t.Fatal(err)
	}
	// "0" is live and "b" ended after the cut-off: a and c are compacted.
	st, more, err := s.CompactOld(ctx, 50, 10)
	if err != nil || more || st.Runs != 2 {
		t.Fatalf("%+v %v %v", st, more, err)
	}
	if len(storedLog(t, s, "a")) != 2 || len(storedLog(t, s, "b")) != 3 || len(storedLog(t, s, "c")) != 2 || len(storedLog(t, s, "0")) != 2 {
		t.Fatal("wrong runs compacted")
	}
	// Later b is old enough; a page of one says more may wait.
	st, more, err = s.CompactOld(ctx, 200, 1)
	if err != nil || !more || st.Runs != 1 || len(storedLog(t, s, "b")) != 2 {
		t.Fatalf("%+v %v %v", st, more, err)
	}
	// Nothing is taken twice: every finished run is done, the live one waits.
	var waiting int
	if err := s.Writer().QueryRow(`SELECT COUNT(*) FROM runs WHERE compacted_at IS NULL AND ended_at IS NOT NULL`).Scan(&waiting); err != nil || waiting != 0 {
		t.Fatalf("%d finished runs still waiting (%v)", waiting, err)
	}
	st, more, err = s.CompactOld(ctx, 200, 10)
	if err != nil || more || st.Runs != 0 {
		t.Fatalf("%+v %v %v", st, more, err)
	}
}

func TestRetentionSettings(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if r, err := s.Retention(ctx); err != nil || r != DefaultRetention {
		t.Fatalf("%+v %v", r, err)
	}
	want := Retention{CompactAfter: 3 * time.Hour, CompactOverBytes: 0}
	if err := s.SetRetention(ctx, want, 1); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Retention(ctx); err != nil || r != want {
		t.Fatalf("%+v %v", r, err)
	}
	_ = s.PutSetting(ctx, SettingCompactOverBytes, "lots", 2)
	if r, _ := s.Retention(ctx); r.CompactOverBytes != DefaultRetention.CompactOverBytes {
		t.Fatalf("%+v", r)
	}
}

// After bulk writes the WAL file is truncated, not left at its largest.
func TestWALTruncatedAfterBulkWrites(t *testing.T) {
	old := walTruncateAbove
	t.Cleanup(func() { walTruncateAbove = old }) // after the store's own cleanup closes it
	walTruncateAbove = 1 << 20
	s := open(t)
	ctx := context.Background()
	seedRun(t, s, "r", false, nil)
	// A reader holding a snapshot keeps the checkpointer from resetting the
	// WAL, so the bulk writes below pile up in it.
	conn, err := s.Reader().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("y", 4000))
	for i := 0; i < 6; i++ {
		err := s.WriteBatch(ctx, func(b *Batch) error {
			evs := make([]NewEvent, 100)
			for j := range evs {
				evs[j] = NewEvent{RunID: "r", Seq: int64(i*100 + j + 1), Kind: "text-delta", Data: data}
			}
			return b.AppendEvents(evs)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walSize := func() int64 {
		fi, err := os.Stat(s.Path() + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	if walSize() <= walTruncateAbove {
		t.Fatalf("the WAL did not grow: %d", walSize())
	}
	_ = tx.Rollback()
	conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for walSize() > 64<<10 {
		if time.Now().After(deadline) {
			t.Fatalf("WAL still %d bytes", walSize())
		}
		time.Sleep(50 * time.Millisecond)
	}
	z, err := s.Sizes(ctx)
	if err != nil || z.DatabaseBytes < 2<<20 || z.WALBytes > 64<<10 {
		t.Fatalf("%+v %v", z, err)
	}
}

// A database this build makes gives the pages compaction freed back to the
// file system: the file shrinks, it does not stay at its largest.
func TestReclaimShrinksTheFileAfterCompaction(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	var mode int
	if err := s.Writer().QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("auto_vacuum = %d, %v; want 2 (incremental)", mode, err)
	}
	evs := make([]ev, 20000)
	for i := range evs {
		evs[i] = ev{Kind: "text-delta", Text: strings.Repeat("z", 200)}
	}
	evs = append(evs, ev{Kind: "done", Reason: "success"})
	seedRun(t, s, "big", true, evs)
	pages := func() (n int64) {
		if err := s.Writer().QueryRow(`PRAGMA page_count`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	full := pages()
	if _, err := s.CompactRun(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if pages() != full {
		t.Fatalf("compaction alone changed the page count: %d -> %d", full, pages())
	}
	shrank, err := s.Reclaim(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var free int
	if err := s.Writer().QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	// The text stays (4 MB of it); the per-delta overhead goes.
	if left := pages(); shrank <= 0 || free != 0 || left >= full || shrank != (full-left)*4096 {
		t.Fatalf("shrank %d bytes, %d pages free, %d of %d pages left", shrank, free, left, full)
	}
	var text strings.Builder
	got := storedLog(t, s, "big")
	for _, e := range got[:len(got)-1] {
		text.WriteString(e.Text)
	}
	if len(got) > 100 || text.String() != strings.Repeat("z", 200*20000) || got[len(got)-1].Kind != "done" {
		t.Fatalf("log after reclaim: %d events, %d bytes of text", len(got), text.Len())
	}
}
