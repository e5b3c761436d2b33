package board

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/store"
)

func TestPortLeasesNeverOverlapAndSurviveARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b := New(Options{Store: st})
	// Below Linux's ephemeral range (32768–60999): a port there can be
	// taken for a moment by any outgoing connection of a busy machine (the
	// other tests), and a lease rightly skips a port in use.
	if err := b.SetPortRange(ctx, PortRange{First: 30000, Last: 30049, Block: 10}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 6 {
		ids = append(ids, mustCreate(t, b, NewTask{Title: "t"}).ID)
	}
	// Five tasks lease at once: five distinct blocks; the sixth finds none.
	got := make([][]int, 5)
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			p, err := b.LeasePorts(ctx, ids[i])
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		})
	}
	wg.Wait()
	seen := map[int]string{}
	for i, ps := range got {
		if len(ps) != 10 {
			t.Fatalf("task %d got %v", i, ps)
		}
		for _, p := range ps {
			if p < 30000 || p > 30049 {
				t.Fatalf("port %d outside the range", p)
			}
			if other, ok := seen[p]; ok {
				t.Fatalf("port %d leased to %s and %s", p, other, ids[i])
			}
			seen[p] = ids[i]
		}
	}
	if _, err := b.LeasePorts(ctx, ids[5]); !errors.Is(err, ErrNoPorts) {
		t.Fatalf("a full range: %v", err)
	}
	// Asking again is the same lease.
	if again, _ := b.LeasePorts(ctx, ids[0]); again[0] != got[0][0] {
		t.Fatalf("lease moved: %v then %v", got[0], again)
	}
	b.Close()
	st.Close()

	// After a restart the leases are where they were.
	st, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b = New(Options{Store: st})
	t.Cleanup(func() { b.Close(); st.Close() })
	for i := range 5 {
		p, err := b.Ports(ctx, ids[i])
		if err != nil || len(p) != 10 || p[0] != got[i][0] {
			t.Fatalf("after restart task %d: %v %v (was %v)", i, p, err, got[i])
		}
	}
	// A worktree that stops being active frees its block for the next.
	if err := b.SetWorktree(ctx, Worktree{TaskID: ids[2], RepoPath: "/r", Path: "/p", Branch: "b", BaseCommit: "c", Status: "active"}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetWorktreeStatus(ctx, ids[2], "paused"); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.Ports(ctx, ids[2]); p != nil {
		t.Fatalf("paused worktree still holds %v", p)
	}
	p, err := b.LeasePorts(ctx, ids[5])
	if err != nil || p[0] != got[2][0] {
		t.Fatalf("freed block not reused: %v %v", p, err)
	}
	// Narrowing the range never hands out a port a live lease holds.
	if err := b.SetPortRange(ctx, PortRange{First: 30005, Last: 30099, Block: 7}); err != nil {
		t.Fatal(err)
	}
	if err := b.ReleasePorts(ctx, ids[5]); err != nil {
		t.Fatal(err)
	}
	p, err = b.LeasePorts(ctx, ids[5])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range p {
		if q <= 30049 && seen[q] != "" && seen[q] != ids[2] {
			t.Fatalf("port %d overlaps %s's lease", q, seen[q])
		}
	}
	if env := PortEnv([]int{41000, 41001}); env["CLAWBOO_PORT"] != "41000" || env["CLAWBOO_PORTS"] != "41000,41001" {
		t.Fatalf("env %v", env)
	}
}

func TestPortRangeValidation(t *testing.T) {
	for _, r := range []PortRange{{80, 90, 5}, {50000, 40000, 5}, {50000, 50003, 10}, {50000, 60000, 0}, {50000, 70000, 10}} {
		wantRule(t, r.Validate(), "invalid")
	}
	b, _ := newBoard(t)
	if r, err := b.PortRange(context.Background()); err != nil || r != DefaultPortRange {
		t.Fatalf("default %v %v", r, err)
	}
}

// TestALeaseSkipsABlockWithABusyPort (issue 26 §2.5e): a port another
// program listens on (here the test's own listener) is never leased.
func TestALeaseSkipsABlockWithABusyPort(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	// The busy port sits in the range's first block of three.
	first := max(busy-1, 1024)
	b := New(Options{Store: st})
	defer b.Close()
	if err := b.SetPortRange(ctx, PortRange{First: first, Last: first + 5, Block: 3}); err != nil {
		t.Fatal(err)
	}
	ports, err := b.LeasePorts(ctx, mustCreate(t, b, NewTask{Title: "t"}).ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p == busy {
			t.Fatalf("leased %v, which holds the busy port %d", ports, busy)
		}
	}
	if ports[0] != first+3 {
		t.Fatalf("leased %v, want the next block from %d", ports, first+3)
	}
}
