package supervisor

import (
	"context"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
)

// QuotaGate is the quota governor as the supervisor sees it (backend/quota,
// joined to agents and teams by backend/dispatch). It is asked once,
// at the one door, before a task run or a team turn is dispatched.
type QuotaGate interface {
	// Admit answers "" to start the work on its runtime, another runtime
	// to route it there (the agent's or team's fallback), or an error: a
	// *Refusal with reason "quota" means the work was deferred (its
	// DeferralID and Until say until when) and will be started again then.
	Admit(ctx context.Context, w QuotaWork) (route executor.ID, why string, err error)
	// Observe records a window a run reported.
	Observe(ctx context.Context, runtime executor.ID, q executor.QuotaWindow)
	// Paused records a task whose run stopped on a rejected window, to be
	// started again (resuming its session) at the reset; it answers the
	// reason in words.
	Paused(ctx context.Context, w QuotaWork, q executor.QuotaWindow) string
	// Succeeded records a run of runtime that ended well: the provider
	// answered, so a rejected window that named no reset time is over.
	Succeeded(ctx context.Context, runtime executor.ID)
}

// QuotaWork is work at the door.
type QuotaWork struct {
	Runtime executor.ID
	AgentID string
	TeamID  string
	TaskID  string
	// Title names the work where deferrals are listed.
	Title string
	// Message is a team turn's message, or what a task run adds to its
	// task (a critic fix run's findings, a send-back's line comments), to
	// start it again after the reset; a task's secret values are hidden.
	Message string
	Reason  string
	// Carry is the task run's place in its chain, kept with a deferral.
	Carry Carry
}

// ReasonQuota is the refusal reason of work the governor held back.
const ReasonQuota = "quota"

// quotaStopAfter is how far off a rejected window's reset must be for a
// live task run to be paused on it; a shorter wait (a per-minute request
// limit) is the runtime's own retry to make.
const quotaStopAfter = 2 * time.Minute

// admit asks the gate and routes p (and *a) when it says so. It refuses
// with a *Refusal (reason quota) when the work was deferred.
func (s *Supervisor) admit(ctx context.Context, a *executor.Adapter, p *StartParams, w QuotaWork) error {
	if s.opts.Quota == nil {
		return nil
	}
	w.Runtime = (*a).ID()
	route, why, err := s.opts.Quota.Admit(ctx, w)
	if err != nil {
		return err
	}
	if route == "" || route == (*a).ID() {
		return nil
	}
	to, ok := s.opts.Registry.Get(route)
	if !ok {
		return refuse(ReasonQuota, "%s (the fallback runtime %s is not available)", why, route)
	}
	p.routedFrom, p.routedWhy = (*a).ID(), why
	p.RuntimeID, *a = route, to
	s.opts.Log.Info("work routed to a fallback runtime", "from", w.Runtime, "to", route, "task", w.TaskID, "team", w.TeamID, "why", why)
	return nil
}

// heldMessage is what a task run adds to its task, with the task's secret
// values hidden, for the governor to keep should it defer the run. When
// the values cannot be read it is "": a message that may hold one is
// never stored.
func (s *Supervisor) heldMessage(ctx context.Context, t board.Task, msg string) string {
	if s.opts.Quota == nil || strings.TrimSpace(msg) == "" || len(t.Secrets) == 0 {
		return msg
	}
	if s.opts.TaskSecrets == nil {
		return ""
	}
	vals, err := s.opts.TaskSecrets(ctx, t.Secrets)
	if err != nil {
		return ""
	}
	return redact.Values(vals).Hide(msg)
}

// quotaSeen records a window a run reported and, for a task run on a CLI
// runtime, decides whether it stops the run: a rejected window that resets
// more than two minutes from now (or never says when).
func (l *liveRun) quotaSeen(o *outcome, q executor.QuotaWindow) bool {
	s := l.s
	if s.opts.Quota != nil {
		s.opts.Quota.Observe(context.Background(), l.params.RuntimeID, q)
	}
	if l.task == nil || s.opts.Quota == nil || q.Status != executor.QuotaRejected || o.quotaStop != nil {
		return false
	}
	// A native run's provider windows are per provider, and its router
	// moves a turn to the next provider on a 429: a rejected window there
	// says nothing about whether the run can go on (a run with no
	// provider left ends on its own error; the next start is held).
	if l.params.RuntimeID == executor.Native {
		return false
	}
	if q.ResetsAt > 0 && time.UnixMilli(q.ResetsAt).Sub(s.opts.Now()) < quotaStopAfter {
		return false
	}
	o.quotaStop = &q
	return true
}
