package bus

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPublishLossyKeepsOrderAndWakes(t *testing.T) {
	b := New[int](0)
	s := b.Subscribe(2)
	for i := 1; i <= 5; i++ {
		b.Publish(i) // 3..5 are dropped: the buffer holds two
	}
	if got := []int{<-s.C(), <-s.C()}; got[0] != 1 || got[1] != 2 {
		t.Fatalf("got %v", got)
	}
	select {
	case v := <-s.C():
		t.Fatalf("unexpected %d", v)
	default:
	}
	if s.Evicted() {
		t.Fatal("lossy publish must never evict")
	}
	s.Close()
	s.Close() // idempotent
	if b.Len() != 0 {
		t.Fatal("subscriber not removed")
	}
}

func TestPublishMustDeliversEverythingToAReader(t *testing.T) {
	b := New[int](time.Second)
	s := b.Subscribe(1)
	const n = 1000
	var got []int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := range s.C() {
			got = append(got, v)
			if len(got) == n {
				return
			}
		}
	}()
	for i := 0; i < n; i++ {
		b.PublishMust(i)
	}
	wg.Wait()
	for i, v := range got {
		if v != i {
			t.Fatalf("order broken at %d: %d", i, v)
		}
	}
	s.Close()
}

func TestPublishMustEvictsStalledSubscriber(t *testing.T) {
	b := New[int](20 * time.Millisecond)
	stalled := b.Subscribe(1)
	live := b.Subscribe(4)
	b.PublishMust(1)
	start := time.Now()
	b.PublishMust(2) // stalled buffer is full: evicted after the bound
	if el := time.Since(start); el > time.Second {
		t.Fatalf("bound not honoured: %v", el)
	}
	if !stalled.Evicted() {
		t.Fatal("stalled subscriber not evicted")
	}
	if v, ok := <-stalled.C(); !ok || v != 1 {
		t.Fatalf("buffered value lost: %v %v", v, ok)
	}
	if _, ok := <-stalled.C(); ok {
		t.Fatal("evicted channel must be closed")
	}
	if <-live.C() != 1 || <-live.C() != 2 {
		t.Fatal("live subscriber missed a value")
	}
	if live.Evicted() {
		t.Fatal("live subscriber evicted")
	}
	b.Close()
	if _, ok := <-live.C(); ok {
		t.Fatal("close must end subscriptions")
	}
	late := b.Subscribe(1)
	if _, ok := <-late.C(); ok || !late.Evicted() {
		t.Fatal("subscribe after close must be closed")
	}
	b.Publish(3)
	b.PublishMust(3)
}

func TestConcurrentPublishSubscribe(t *testing.T) {
	b := New[int](10 * time.Millisecond)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				b.Publish(j)
				b.PublishMust(j)
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				s := b.Subscribe(4)
				select {
				case <-s.C():
				default:
				}
				s.Close()
			}
		}()
	}
	wg.Wait()
	b.Close()
}

func TestSubscribeAfterCloseThenCloseIsHarmless(t *testing.T) {
	b := New[int](0)
	b.Close()
	s := b.Subscribe(1)
	if _, ok := <-s.C(); ok || !s.Evicted() {
		t.Fatal("a subscription to a closed broker must be closed and evicted")
	}
	s.Close() // must not panic
}

// A subscription narrowed by Only is offered just the values it keeps, in
// order: the others neither fill its buffer nor count as missed, so even a
// subscriber that never reads is not evicted by values it does not want.
func TestOnlyOffersJustTheKeptValues(t *testing.T) {
	b := New[int](time.Millisecond)
	even := b.Subscribe(2)
	even.Only(func(v int) bool { return v%2 == 0 })
	all := b.Subscribe(16)
	for i := 1; i <= 5; i++ {
		b.PublishMust(i)
	}
	b.Publish(7)
	if even.Evicted() {
		t.Fatal("values the subscriber does not want filled its buffer")
	}
	if got := []int{<-even.C(), <-even.C()}; got[0] != 2 || got[1] != 4 {
		t.Fatalf("got %v", got)
	}
	select {
	case v := <-even.C():
		t.Fatalf("unexpected %d", v)
	default:
	}
	for want := 1; want <= 5; want++ {
		if v := <-all.C(); v != want {
			t.Fatalf("the other subscriber got %d, want %d", v, want)
		}
	}
	b.Close()
}
