package app

import (
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/quota"
)

// quotaTip keeps the tray's tooltip naming the tightest usage window: on
// every ledger change, and each minute (a window resets with no event).
type quotaTip struct {
	stop chan struct{}
	done chan struct{}
}

func startQuotaTip(events *bus.Broker[quota.Event], tightest func() string, set func(string)) *quotaTip {
	q := &quotaTip{stop: make(chan struct{}), done: make(chan struct{})}
	sub := events.Subscribe(16)
	go func() {
		defer close(q.done)
		defer sub.Close()
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		set(tightest())
		for {
			select {
			case <-q.stop:
				return
			case _, ok := <-sub.C():
				if !ok {
					return
				}
			case <-tick.C:
			}
			set(tightest())
		}
	}()
	return q
}

func (q *quotaTip) close() {
	if q == nil {
		return
	}
	close(q.stop)
	<-q.done
}
