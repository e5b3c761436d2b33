package app

import (
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/routines"
)

type notes struct{ got chan [3]string }

func (n notes) Notify(key, summary, body string) { n.got <- [3]string{key, summary, body} }
func (n notes) Close(string)                     {}

func TestRoutineNoticesOnAFailedFireWithoutTaskAndOnDisarm(t *testing.T) {
	events := bus.New[routines.Event](0)
	n := notes{got: make(chan [3]string, 10)}
	r := startRoutineNotices(events, n)
	defer r.close()
	errText := "verify failed"
	task := "T1"
	sc := routines.Schedule{ID: "S1", Status: routines.Idle, Template: routines.Template{Title: "Nightly bump"}}
	publish := func(ev routines.Event) { events.PublishMust(ev) }
	publish(routines.Event{Schedule: &sc})
	// A failed fire with its own task: the task's notification says it.
	publish(routines.Event{Fire: &routines.Fire{ID: "F1", ScheduleID: "S1", Outcome: routines.OutcomeFailed, TaskID: &task}})
	// A failed fire without one (an OpenClaw turn): said here.
	publish(routines.Event{Fire: &routines.Fire{ID: "F2", ScheduleID: "S1", Outcome: routines.OutcomeFailed, Reason: "stopped by the 10m0s watchdog"}})
	got := <-n.got
	if got[0] != "fire:F2" || got[1] != "Clawboo: routine failed" || got[2] != "Nightly bump\nstopped by the 10m0s watchdog" {
		t.Fatalf("fire notice %q", got)
	}
	// Moving into error notifies once; staying there does not.
	disarmed := sc
	disarmed.Status, disarmed.LastError = routines.Error, &errText
	publish(routines.Event{Schedule: &disarmed})
	publish(routines.Event{Schedule: &disarmed})
	got = <-n.got
	if got[0] != "routine:S1" || got[1] != "Clawboo: routine stopped after 3 failures" || got[2] != "Nightly bump\nverify failed" {
		t.Fatalf("disarm notice %q", got)
	}
	select {
	case extra := <-n.got:
		t.Fatalf("unexpected notice %q", extra)
	case <-time.After(200 * time.Millisecond):
	}
}
