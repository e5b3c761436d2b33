package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
)

// attention brings what needs a person to wherever they are outside the
// page: a native popup per approval request, a desktop notification for
// each request and for each task run that finishes or fails, and the tray's
// counts. It owns no answers: a popup's choice goes through the same
// approvals queue the page and the API use, so the first answer anywhere
// wins and the others are withdrawn.
//
// Invariants:
//   - At most one popup is on screen; the rest wait in request order. A
//     request answered elsewhere or expired is withdrawn (its popup closed
//     when shown, dropped from the line when waiting, its notification
//     closed).
//   - Closing a popup without choosing (Escape, the window's close) is not
//     an answer: the request stays answerable in the page and the tray and
//     its popup is not shown again.
//   - All state is owned by one goroutine (loop); the popup toolkit's
//     callback only sends to it, so a slow resolve never blocks the UI
//     thread.
type attention struct {
	o       attentionOptions
	answers chan popupAnswer
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once

	// loop-owned
	waiting   []approval.Request // pending, not yet shown, oldest first
	shown     string             // the request whose popup is up
	dismissed map[string]bool    // closed without an answer: not shown again
	pending   map[string]bool    // every pending request (for the tray)
	running   map[string]bool    // live task runs
	live      map[string]bool    // every live run
	onHost    map[string]string  // live runs on another machine → its host
}

// popupAnswer is what a person did with a popup.
type popupAnswer struct {
	ID     string
	Choice popupChoice
}

type popupChoice int

const (
	choiceDismissed popupChoice = iota // closed without choosing
	choiceAllow
	choiceDeny
	choiceAllowAlways // "allow for this session", where the request offers it
)

// approvalPopup is one request as a popup shows it. Every field is plain
// text from the agent (untrusted): the toolkit must show it as text, never
// as markup or a format string.
type approvalPopup struct {
	ID      string
	Title   string // the window title, unique per request
	Heading string
	Program string
	Args    string
	Folder  string
	Agent   string
	Reason  string
	Expires time.Time
	// Always offers "Allow for this session" (the agent offers it).
	Always bool
}

// Body is the popup's text below the heading.
func (p approvalPopup) Body() string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	line("Program", p.Program)
	line("Arguments", p.Args)
	line("Folder", p.Folder)
	line("Agent", p.Agent)
	line("Why", p.Reason)
	if !p.Expires.IsZero() {
		line("Answer by", p.Expires.Local().Format("15:04:05"))
	}
	return strings.TrimRight(b.String(), "\n")
}

// popupUI shows approval popups. Show is only called with nothing on
// screen; a choice comes back through the answer function given to
// newAttention's caller (attention.answer). Withdraw closes a popup
// without an answer being reported.
type popupUI interface {
	Show(p approvalPopup)
	Withdraw(id string)
}

// notifier sends desktop notifications; key names one so it can be closed
// later. Failures are the notifier's to log.
type notifier interface {
	Notify(key, summary, body string)
	Close(key string)
}

type attentionOptions struct {
	Approvals *approval.Queue
	Runs      *bus.Broker[store.Run]
	// Resolve answers a request on behalf of the popup.
	Resolve func(ctx context.Context, id string, d approval.Decision) error
	// AgentName and TaskTitle make requests and notifications readable;
	// either may be nil.
	AgentName func(ctx context.Context, id string) string
	TaskTitle func(ctx context.Context, id string) string
	Popups    popupUI  // nil: no popups
	Notify    notifier // nil: no notifications
	// Status receives the tray's counts whenever they change; nil: none.
	Status func(pendingApprovals, runningTasks, liveRuns int)
	// HostRuns receives the live runs per host (host id → count) whenever
	// they change; nil: none.
	HostRuns func(perHost map[string]int)
	Log      *slog.Logger
}

func newAttention(o attentionOptions) *attention {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &attention{
		o: o, answers: make(chan popupAnswer, 16), stop: make(chan struct{}), done: make(chan struct{}),
		dismissed: map[string]bool{}, pending: map[string]bool{}, running: map[string]bool{}, live: map[string]bool{}, onHost: map[string]string{},
	}
}

// start subscribes, loads what is already pending and runs the loop.
func (a *attention) start(ctx context.Context) {
	approvals := a.o.Approvals.Subscribe(256)
	runs := a.o.Runs.Subscribe(256)
	go a.loop(ctx, approvals, runs)
}

// close stops the loop and withdraws the popup on screen.
func (a *attention) close() {
	a.once.Do(func() { close(a.stop) })
	<-a.done
}

// answer is the popup toolkit's callback; it never blocks.
func (a *attention) answer(id string, c popupChoice) {
	select {
	case a.answers <- popupAnswer{ID: id, Choice: c}:
	default:
		a.o.Log.Warn("popup answer dropped: too many at once", "approval", id)
	}
}

func (a *attention) loop(ctx context.Context, approvals *bus.Subscription[approval.Event], runs *bus.Subscription[store.Run]) {
	defer close(a.done)
	defer func() { approvals.Close(); runs.Close() }()
	apC, runC := approvals.C(), runs.C()
	a.resync(ctx)
	for {
		select {
		case <-a.stop:
			if a.shown != "" && a.o.Popups != nil {
				a.o.Popups.Withdraw(a.shown)
			}
			return
		case ev, ok := <-apC:
			if !ok {
				// Fell behind (or the queue closed): start again from the
				// table, after a pause so a closed queue cannot spin us.
				apC = nil
				select {
				case <-time.After(200 * time.Millisecond):
				case <-a.stop:
					continue
				}
				approvals = a.o.Approvals.Subscribe(256)
				apC = approvals.C()
				a.resync(ctx)
				continue
			}
			a.onApproval(ctx, ev)
		case r, ok := <-runC:
			if !ok {
				runC = nil // the supervisor closed: shutting down
				continue
			}
			a.onRun(ctx, r)
		case ans := <-a.answers:
			a.onAnswer(ctx, ans)
		}
		a.pump(ctx)
	}
}

// resync rebuilds the pending set from the queue's table (at start and
// after this subscriber fell behind).
func (a *attention) resync(ctx context.Context) {
	ps, err := a.o.Approvals.Pending(ctx)
	if err != nil {
		a.o.Log.Warn("pending approvals not read", "err", err)
		return
	}
	now := map[string]bool{}
	for _, p := range ps {
		now[p.ID] = true
		if !a.pending[p.ID] {
			a.onApproval(ctx, approval.Event{Kind: "requested", Approval: p})
		}
	}
	for id := range a.pending {
		if !now[id] {
			a.withdraw(id)
		}
	}
	a.pump(ctx)
}

func (a *attention) onApproval(ctx context.Context, ev approval.Event) {
	r := ev.Approval
	if r.Status != approval.Pending {
		a.withdraw(r.ID)
		return
	}
	if a.pending[r.ID] {
		return
	}
	a.pending[r.ID] = true
	a.waiting = append(a.waiting, r)
	if a.o.Notify != nil {
		p := a.popupOf(ctx, r)
		a.o.Notify.Notify("approval:"+r.ID, "Clawboo: approval needed", oneLine(p.Heading)+"\n"+p.Body())
	}
	a.status()
}

// withdraw forgets a request that is no longer pending.
func (a *attention) withdraw(id string) {
	if !a.pending[id] {
		return
	}
	delete(a.pending, id)
	delete(a.dismissed, id)
	for i, w := range a.waiting {
		if w.ID == id {
			a.waiting = append(a.waiting[:i], a.waiting[i+1:]...)
			break
		}
	}
	if a.shown == id {
		a.shown = ""
		if a.o.Popups != nil {
			a.o.Popups.Withdraw(id)
		}
	}
	if a.o.Notify != nil {
		a.o.Notify.Close("approval:" + id)
	}
	a.status()
}

func (a *attention) onAnswer(ctx context.Context, ans popupAnswer) {
	if ans.ID != a.shown {
		return // a popup withdrawn just as it was answered
	}
	a.shown = ""
	if ans.Choice == choiceDismissed {
		a.dismissed[ans.ID] = true
		return
	}
	// The queue decides: the request leaves when its "resolved" event
	// arrives, whoever answered first.
	d := approval.Deny
	switch ans.Choice {
	case choiceAllow:
		d = approval.Approve
	case choiceAllowAlways:
		d = approval.AllowAlways
	}
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := a.o.Resolve(rctx, ans.ID, d); err != nil {
			a.o.Log.Info("popup answer not taken", "approval", ans.ID, "err", err)
		}
	}()
	a.dismissed[ans.ID] = true // answered: never shown again, even if the resolve is slow
}

// pump puts the oldest waiting request on screen when nothing is.
func (a *attention) pump(ctx context.Context) {
	if a.o.Popups == nil || a.shown != "" {
		return
	}
	for len(a.waiting) > 0 {
		r := a.waiting[0]
		a.waiting = a.waiting[1:]
		if a.dismissed[r.ID] || !a.pending[r.ID] {
			continue
		}
		a.shown = r.ID
		a.o.Popups.Show(a.popupOf(ctx, r))
		return
	}
}

func (a *attention) onRun(ctx context.Context, r store.Run) {
	ended := r.EndedAt != nil
	if ended {
		delete(a.live, r.ID)
		delete(a.onHost, r.ID)
	} else {
		a.live[r.ID] = true
		if r.HostID != nil {
			a.onHost[r.ID] = *r.HostID
		}
	}
	if r.TaskID != nil {
		if ended {
			if a.running[r.ID] {
				a.notifyTask(ctx, r)
			}
			delete(a.running, r.ID)
		} else {
			a.running[r.ID] = true
		}
	}
	a.status()
}

// notifyTask tells a person a task run ended on its own: finished, failed
// or timed out (an abort is their own doing or a budget's, which the page
// reports).
func (a *attention) notifyTask(ctx context.Context, r store.Run) {
	if a.o.Notify == nil {
		return
	}
	title := r.Title
	if a.o.TaskTitle != nil {
		if t := a.o.TaskTitle(ctx, *r.TaskID); t != "" {
			title = t
		}
	}
	switch r.Status {
	case store.RunSucceeded:
		a.o.Notify.Notify("run:"+r.ID, "Clawboo: task finished", oneLine(title))
	case store.RunFailed, store.RunTimedOut:
		body := oneLine(title)
		if r.Error != "" {
			body += "\n" + oneLine(r.Error)
		}
		a.o.Notify.Notify("run:"+r.ID, "Clawboo: task failed", body)
	}
}

func (a *attention) status() {
	if a.o.Status != nil {
		a.o.Status(len(a.pending), len(a.running), len(a.live))
	}
	if a.o.HostRuns != nil {
		per := map[string]int{}
		for _, h := range a.onHost {
			per[h]++
		}
		a.o.HostRuns(per)
	}
}

// popupOf is the popup text of a request: the program and its arguments
// for a command, the tool and its arguments for a tool call.
func (a *attention) popupOf(ctx context.Context, r approval.Request) approvalPopup {
	p := approvalPopup{ID: r.ID, Folder: r.Folder, Reason: r.Reason, Agent: r.AgentID, Always: r.Always}
	if r.ExpiresAt > 0 {
		p.Expires = time.UnixMilli(r.ExpiresAt)
	}
	if r.AgentID != "" && a.o.AgentName != nil {
		if n := a.o.AgentName(ctx, r.AgentID); n != "" {
			p.Agent = n
		}
	}
	short := r.ID
	if len(short) > 8 {
		short = short[len(short)-8:]
	}
	switch r.Kind {
	case approval.KindCommand:
		prog, args := firstWord(r.Command)
		p.Program, p.Args = prog, args
		p.Heading = "Allow " + filepath.Base(prog) + " to run?"
	default:
		p.Program, p.Args = r.Tool, r.Args
		p.Heading = "Allow the tool " + r.Tool + "?"
	}
	p.Title = "Clawboo approval " + short
	return p
}

// firstWord splits a shell-quoted command line (as the native runtime
// writes it: plain words bare, others in single quotes with ' as '\”)
// into its program, unquoted, and the rest as written.
func firstWord(cmd string) (prog, rest string) {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '\\' && !quoted && i+1 < len(cmd):
			i++
			b.WriteByte(cmd[i])
		case c == ' ' && !quoted:
			return b.String(), strings.TrimSpace(cmd[i+1:])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// oneLine keeps the first line of s, at most 200 characters.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
