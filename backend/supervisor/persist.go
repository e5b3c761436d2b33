package supervisor

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
)

// A run whose final write failed even after the journal's retries (a full
// disk) has still ended: the host must not go on calling it running, nor
// report a result that is not durable. So it ends failed in memory, with a
// message saying its result was not saved; Live and the API answer with that
// state; Abort says it already finished; and the resaver keeps writing the
// same failed row, with a backoff, until it lands (or Close gives up, after
// which the next start marks a row left running failed, as it does any
// orphan).

// ErrNotSaved marks a run whose result could not be made durable; Wait
// returns it wrapped around the store's error (store.IsDiskFull tells a
// full disk).
var ErrNotSaved = errors.New("the run's result could not be saved")

// msgDiskFull is the error of a run whose result could not be saved because
// the disk is full (and, with ": ...", of one whose events could not be).
const msgDiskFull = "the disk is full"

func notSavedMessage(err error) string {
	if store.IsDiskFull(err) {
		return msgDiskFull + ": the run's result could not be saved; free some disk space"
	}
	return fmt.Sprintf("%v: %v", ErrNotSaved, err)
}

// Resave backoff: the first retry soon after the failure, then doubling.
const (
	resaveFirst = time.Second
	resaveMax   = 30 * time.Second
)

// unsavedRun is a finished run whose final write has not landed yet.
type unsavedRun struct {
	view store.Run
	row  store.NewRun
	done *store.NewEvent
}

// resaver owns the unsaved runs and the goroutine that retries them.
type resaver struct {
	mu    sync.Mutex
	runs  map[string]*unsavedRun
	first atomic.Int64 // the first retry's delay in ns (tests shorten it)
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

func newResaver() *resaver {
	r := &resaver{runs: map[string]*unsavedRun{}, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	r.first.Store(int64(resaveFirst))
	return r
}

// keepUnsaved records an ended run whose result is not durable and wakes
// the resaver.
func (s *Supervisor) keepUnsaved(u *unsavedRun) {
	s.resave.mu.Lock()
	s.resave.runs[u.view.ID] = u
	s.resave.mu.Unlock()
	signal(s.resave.wake)
}

// unsaved returns the state of an ended run whose result is not durable yet.
func (s *Supervisor) unsaved(id string) (store.Run, bool) {
	s.resave.mu.Lock()
	defer s.resave.mu.Unlock()
	u := s.resave.runs[id]
	if u == nil {
		return store.Run{}, false
	}
	return u.view, true
}

// resaveLoop retries unsaved runs until each lands or Close stops it.
func (s *Supervisor) resaveLoop() {
	r := s.resave
	defer close(r.done)
	delay := time.Duration(0) // 0: no retry has failed since the last success
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false // the timer holds a retry that has not fired yet
	for {
		select {
		case <-r.stop:
			if left := s.resaveAll(); left > 0 {
				// A row left running is marked failed at the next start; a run
				// whose row never landed is lost with this process.
				s.opts.Log.Error("run results not saved before shutdown", "runs", left)
			}
			return
		case <-r.wake:
			if armed {
				continue // a retry is already due: a new unsaved run must not put it off
			}
			if delay == 0 {
				delay = time.Duration(r.first.Load())
			}
			timer.Reset(delay)
			armed = true
		case <-timer.C:
			armed = false
			if s.resaveAll() == 0 {
				delay = 0
				continue
			}
			delay = min(2*delay, resaveMax)
			timer.Reset(delay)
			armed = true
		}
	}
}

// resaveAll tries every unsaved run once, all in one journal batch, and
// says how many are left.
func (s *Supervisor) resaveAll() int {
	r := s.resave
	r.mu.Lock()
	pending := make([]*unsavedRun, 0, len(r.runs))
	for _, u := range r.runs {
		pending = append(pending, u)
	}
	r.mu.Unlock()
	replies := make([]chan error, len(pending))
	for i, u := range pending {
		row := u.row
		replies[i] = make(chan error, 1)
		s.journal.submit(op{kind: opFinish, runID: row.ID, final: &row, done: u.done, reply: replies[i]})
	}
	left := 0
	for i, u := range pending {
		if err := <-replies[i]; err != nil {
			left++
			continue
		}
		r.mu.Lock()
		delete(r.runs, u.row.ID)
		r.mu.Unlock()
		s.opts.Log.Info("run result saved after a failed write", "run", u.row.ID)
		s.notify(u.row.ID)
	}
	return left
}

func (s *Supervisor) stopResaver() {
	close(s.resave.stop)
	<-s.resave.done
}

// title is the first line of a message, cut to 120 characters: the name
// a run is listed by. The whole message is the run's prompt (runPrompt).
func title(msg string) string {
	msg = strings.TrimSpace(msg)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	const max = 120
	if utf8.RuneCountInString(msg) <= max {
		return msg
	}
	r := []rune(msg)
	return string(r[:max-1]) + "…"
}

// maxPrompt bounds the message stored with a run, in bytes.
const maxPrompt = 16 << 10

// promptCut ends a stored message that was cut at maxPrompt.
const promptCut = "\n… [cut: the message was longer than 16 KiB]"

// runPrompt is the message a run was started with as the ledger stores it:
// secret-looking tokens redacted first (so a key pasted into a chat is not
// kept), then cut at a rune boundary to maxPrompt bytes with a marker.
func runPrompt(msg string) string {
	msg = redact.Secrets(msg)
	if len(msg) <= maxPrompt {
		return msg
	}
	cut := maxPrompt - len(promptCut)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + promptCut
}
