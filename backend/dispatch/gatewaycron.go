package dispatch

import (
	"context"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/routines"
)

// GatewayCron lists the OpenClaw Gateway's own cron jobs beside our
// routines, read-only: Clawboo never writes a Gateway job (the source says
// whether the Gateway would let it).
func (d *Door) GatewayCron(ctx context.Context) ([]routines.Schedule, routines.SourceState) {
	src := routines.SourceState{ID: routines.SourceGatewayCron}
	a, ok := d.Registry.Get(executor.OpenClaw)
	oc, is := a.(*openclaw.Adapter)
	if !ok || !is || oc.Client() == nil {
		src.Error = "OpenClaw is not set up"
		return nil, src
	}
	c := oc.Client()
	if st := c.State(); st.Status != openclaw.StatusConnected {
		src.Error = "the OpenClaw Gateway is not connected"
		if st.Error != "" {
			src.Error += ": " + st.Error
		}
		return nil, src
	}
	jobs, err := c.CronJobs(ctx)
	if err != nil {
		src.Error = "the Gateway's cron jobs could not be read: " + err.Error()
		return nil, src
	}
	src.OK, src.Writable = true, c.CanWriteCron()
	out := make([]routines.Schedule, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, gatewayJob(j))
	}
	return out, src
}

func gatewayJob(j openclaw.CronJob) routines.Schedule {
	sc := routines.Schedule{
		ID: "openclaw:" + j.ID, Source: routines.SourceGatewayCron, ReadOnly: true, AgentID: j.AgentID,
		Name: j.Name, Spec: j.Spec, Timezone: j.Timezone, Description: j.Spec, Status: routines.Idle, NextRuns: []int64{},
		Template: routines.Template{Title: j.Name, Description: j.Description},
	}
	if j.Kind == "cron" {
		if spec, err := routines.ParseSpec(j.Spec, j.Timezone); err == nil {
			sc.Description = routines.Describe(spec)
		}
	}
	if !j.Enabled {
		sc.Status = routines.Paused
	}
	if j.NextRunAt > 0 {
		n := j.NextRunAt
		sc.NextRunAt = &n
		sc.NextRuns = []int64{n}
	}
	if j.LastRunAt > 0 {
		l := j.LastRunAt
		sc.LastRunAt = &l
	}
	if j.LastStatus != "" {
		o := j.LastStatus
		sc.LastOutcome = &o
	}
	if j.LastError != "" {
		e := j.LastError
		sc.LastError = &e
	}
	return sc
}
