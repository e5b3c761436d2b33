package app

import (
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/routines"
)

// routineNotices tells a person when a routine needs them: a fire that
// failed without a task of its own (an OpenClaw turn, a fire that could not
// start; a failed task run is notified as a task), and a schedule that
// three failures in a row disarmed. Nothing for successes or skips: the
// Routines page shows those.
type routineNotices struct {
	notify notifier
	// status is each schedule's last seen status, to notify only on the
	// move into error (bounded by the number of schedules).
	status map[string]string
	names  map[string]string
	stop   chan struct{}
	done   chan struct{}
}

func startRoutineNotices(events *bus.Broker[routines.Event], n notifier) *routineNotices {
	r := &routineNotices{notify: n, status: map[string]string{}, names: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{})}
	sub := events.Subscribe(64)
	go func() {
		defer close(r.done)
		defer sub.Close()
		for {
			select {
			case <-r.stop:
				return
			case ev, ok := <-sub.C():
				if !ok {
					return
				}
				r.on(ev)
			}
		}
	}()
	return r
}

func (r *routineNotices) close() {
	close(r.stop)
	<-r.done
}

func (r *routineNotices) on(ev routines.Event) {
	switch {
	case ev.Schedule != nil:
		sc := ev.Schedule
		was := r.status[sc.ID]
		r.status[sc.ID], r.names[sc.ID] = sc.Status, sc.Template.Title
		if sc.Status == routines.Error && was != "" && was != routines.Error {
			body := oneLine(sc.Template.Title)
			if sc.LastError != nil {
				body += "\n" + oneLine(*sc.LastError)
			}
			r.notify.Notify("routine:"+sc.ID, "Clawboo: routine stopped after 3 failures", body)
		}
	case ev.Deleted != "":
		delete(r.status, ev.Deleted)
		delete(r.names, ev.Deleted)
	case ev.Fire != nil && ev.Fire.Outcome == routines.OutcomeFailed && ev.Fire.TaskID == nil:
		r.notify.Notify("fire:"+ev.Fire.ID, "Clawboo: routine failed", oneLine(r.names[ev.Fire.ScheduleID])+"\n"+oneLine(ev.Fire.Reason))
	}
}
