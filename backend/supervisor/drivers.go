package supervisor

import (
	"sync"
	"time"
)

// driverIdle is how long a run's goroutine waits for the next run before
// it ends.
const driverIdle = 10 * time.Second

// drivers hands runs to goroutines that drove runs before. A run's
// goroutine writes its own result (the journal's caller commit), and
// SQLite's transpiled code wants a deep stack: a fresh goroutine grows one
// by copying it several times, which cost about 30 µs a run, a tenth of a
// short run's whole time in `clawboo serve`. A goroutine that is done with
// a run waits up to driverIdle for another one; there is no bound on how
// many run at once, exactly as with a goroutine per run.
type drivers struct {
	work chan *liveRun // unbuffered: a send succeeds only to a waiting goroutine
	quit chan struct{}
	wg   sync.WaitGroup
}

func newDrivers() *drivers {
	return &drivers{work: make(chan *liveRun), quit: make(chan struct{})}
}

// drive runs l on a waiting goroutine, or on a new one when none waits.
func (d *drivers) drive(l *liveRun) {
	select {
	case d.work <- l:
	default:
		d.wg.Add(1)
		go d.serve(l)
	}
}

func (d *drivers) serve(l *liveRun) {
	defer d.wg.Done()
	idle := time.NewTimer(driverIdle)
	defer idle.Stop()
	for {
		l.drive()
		l = nil // the finished run is not kept alive by this goroutine
		stopTimer(idle)
		idle.Reset(driverIdle)
		select {
		case l = <-d.work:
		case <-idle.C:
			return
		case <-d.quit:
			return
		}
	}
}

// close ends the waiting goroutines; call it once no run is live and no
// more can start.
func (d *drivers) close() {
	close(d.quit)
	d.wg.Wait()
}
