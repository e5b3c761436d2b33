package supervisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// finish writes the run's terminal state, synthesizing the done event when
// the adapter did not deliver one, and releases waiters.
func (l *liveRun) finish(o *outcome) {
	s := l.s
	now := s.opts.Now()
	f := store.RunFinish{ID: l.id, EndedAt: now.UnixMilli(), InputTokens: o.usage.InputTokens, OutputTokens: o.usage.OutputTokens}
	pending := l.settleCost(o, &f)
	l.judge(o, &f)
	if f.Status == store.RunSucceeded && s.opts.Quota != nil && l.params.RuntimeID != executor.Native {
		// A native run's windows are its providers', cleared by their own
		// answers (a run may have moved past a 429 to the next provider).
		s.opts.Quota.Succeeded(context.Background(), l.params.RuntimeID)
	}
	f.LastSeq = o.lastSeq
	if f.Session = encodeSession(l.sessionKey, o.session); f.Session != "" {
		f.SessionKey = l.sessionKey
	}
	row := l.row(f)
	fin := op{kind: opFinish, runID: l.id, final: &row, done: l.doneRow}
	var settled store.RunFinish
	if pending != nil {
		fin.charge = l.chargeInBatch(pending, o, &settled)
	}
	// The journal retries a failed write with a short backoff; what still
	// fails is handed to the resaver, and the run ends failed in memory.
	err := s.journal.call(context.Background(), fin)
	if pending != nil {
		if err == nil {
			f = settled // as written, a paused budget included
		}
		l.settleCharge(pending, o, err == nil)
	}
	if err != nil {
		s.opts.Log.Error("run result not saved", "run", l.id, "err", err)
		l.saveErr = fmt.Errorf("%w: %w", ErrNotSaved, err)
		f.Status, f.DoneReason, f.Error = store.RunFailed, string(executor.DoneError), notSavedMessage(err)
		row.Final = &f
	}
	l.settleView(f)
	if l.saveErr != nil {
		s.keepUnsaved(&unsavedRun{view: l.final, row: row, done: l.doneRow})
	} else {
		s.retention.ended(l.id, l.deltaBytes)
	}
	if l.task != nil {
		if l.task.checkout != "" {
			l.finishInPlace(o, l.final)
		} else {
			l.finishTask(o, l.final)
		}
		l.unlockCheckout()
	}
	s.Updates.PublishMust(l.final)
	close(l.finished)
}

// synthesize appends a host-made event after the last one the adapter sent.
func (l *liveRun) synthesize(o *outcome, ev executor.Event) {
	ev.RunID = executor.RunID(l.id)
	ev.Seq = o.lastSeq + 1
	ev.TS = l.s.opts.Now().UnixMilli()
	l.take(o, ev)
}

// row is the run's whole ledger row in its final state f.
func (l *liveRun) row(f store.RunFinish) store.NewRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.view
	r := store.NewRun{
		ID: l.id, RuntimeID: v.RuntimeID, AgentID: v.AgentID, Title: v.Title, CreatedAt: v.CreatedAt,
		StartedAt: v.StartedAt, Final: &f, SessionKey: reviewKey(l.params.SessionKey), Prompt: v.Prompt,
	}
	if v.TaskID != nil {
		r.TaskID = *v.TaskID
	}
	if v.TeamID != nil {
		r.TeamID = *v.TeamID
	}
	if v.Model != nil {
		r.Model = *v.Model
	}
	return r
}

// judge sets how the run ended from what happened: the adapter's own done,
// or the host's when there was none (which then writes the done event);
// then what overrides it — a budget's stop, a person's word (final, whatever
// the runtime said on the way out), a rejected quota window, the idle
// limit — and every aborted run says why.
func (l *liveRun) judge(o *outcome, f *store.RunFinish) {
	if o.done != nil {
		// The adapter reported its own end.
		f.DoneReason, f.Summary = string(o.done.Reason), o.done.Summary
		switch o.done.Reason {
		case executor.DoneSuccess, executor.DoneMaxTurns:
			f.Status = store.RunSucceeded
		case executor.DoneAborted:
			f.Status = store.RunAborted
		default:
			f.Status = store.RunFailed
			f.Error = firstNonEmpty(o.fatalMsg, o.done.Summary, "run failed")
		}
		if o.hostError != "" {
			f.Status, f.Error = store.RunFailed, o.hostError
		}
	} else {
		// The host ends the run and writes the done event itself.
		reason, status := executor.DoneError, store.RunFailed
		msg := firstNonEmpty(o.hostError, o.fatalMsg, msgNoResult)
		if o.abandoned && o.hostError == "" {
			reason, status, msg = executor.DoneAborted, store.RunAborted, msgAbandoned
		}
		if o.notStarted {
			reason, status, msg = executor.DoneAborted, store.RunAborted, msgNotStarted
		}
		f.DoneReason, f.Status, f.Error, f.Summary = string(reason), status, msg, msg
		l.synthesize(o, executor.Done(reason, msg))
	}
	byPerson := strings.HasPrefix(l.stopReason(), StoppedByYou)
	if o.budgetStop != "" {
		f.Status, f.Error = store.RunAborted, "budget_paused:"+o.budgetStop
	} else if byPerson && f.Status != store.RunSucceeded {
		// A person's word is final, whatever the runtime said on the way out.
		f.Status, f.Error = store.RunAborted, l.stopWords(o)
	} else if o.quotaStop != nil && f.Status != store.RunSucceeded {
		f.Status, f.Error = store.RunAborted, "quota:"+o.quotaStop.Window
	}
	if o.timedOut && !byPerson {
		f.Status = store.RunTimedOut
		f.Error = fmt.Sprintf("idle timeout: no events for %s", l.s.opts.IdleTimeout)
		if f.DoneReason == "" || f.DoneReason == string(executor.DoneSuccess) {
			f.DoneReason = string(executor.DoneAborted)
		}
	}
	if f.Status == store.RunAborted && f.Error == "" {
		// Every aborted run says why: who asked, or what the runtime said.
		f.Error = l.stopWords(o)
		if f.Error == "" && o.done != nil {
			f.Error = firstNonEmpty(o.fatalMsg, o.done.Summary, "The runtime ended the run as aborted without saying why.")
		}
	}
}

// settleView makes the live view the run's final state.
func (l *liveRun) settleView(f store.RunFinish) {
	l.mu.Lock()
	v := &l.view
	v.Status, v.Summary, v.Error, v.CostUSD, v.LastSeq = f.Status, f.Summary, f.Error, f.CostUSD, f.LastSeq
	v.InputTokens, v.OutputTokens = f.InputTokens, f.OutputTokens
	dr := f.DoneReason
	v.DoneReason = &dr
	if f.CostKind != "" {
		ck := f.CostKind
		v.CostKind = &ck
	}
	ended := f.EndedAt
	v.EndedAt = &ended
	l.final = *v
	l.mu.Unlock()
}
