package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/routines"
)

// GatewayCron lists the OpenClaw Gateway's own cron jobs as read-only
// schedules, with the source's state.
type GatewayCron func(ctx context.Context) ([]routines.Schedule, routines.SourceState)

// scheduleRoutes: docs/routines.md.
func (a *API) scheduleRoutes() {
	a.mux.Handle("/api/schedules", methods{"GET": a.listSchedules, "POST": a.createSchedule})
	a.mux.Handle("/api/schedules/preview", methods{"POST": a.previewSchedule})
	a.mux.Handle("/api/schedules/{id}", methods{"GET": a.getSchedule, "PATCH": a.patchSchedule, "DELETE": a.deleteSchedule})
	a.mux.Handle("/api/schedules/{id}/run", methods{"POST": a.runSchedule})
	a.mux.Handle("/api/schedules/{id}/fires", methods{"GET": a.scheduleFires})
	a.mux.Handle("/api/settings/routine-grace", methods{"GET": a.getRoutineGrace, "PUT": a.putRoutineGrace})
}

func (a *API) routinesReady(w http.ResponseWriter) bool {
	if a.opts.Routines == nil {
		writeError(w, http.StatusServiceUnavailable, "routines are not available on this server")
		return false
	}
	return true
}

// scheduleError maps the service's errors to statuses.
func scheduleError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, routines.ErrNotFound):
		writeError(w, http.StatusNotFound, "no such schedule")
	case errors.Is(err, routines.ErrSpec), errors.Is(err, routines.ErrTemplate), errors.Is(err, routines.ErrBadRequest), errors.Is(err, routines.ErrNoAgent):
		writeError(w, http.StatusBadRequest, "%s", err.Error())
	case errors.Is(err, routines.ErrConflict):
		writeError(w, http.StatusConflict, "%s", err.Error())
	default:
		writeError(w, http.StatusInternalServerError, "%s", err.Error())
	}
}

func (a *API) listSchedules(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	list, err := a.opts.Routines.List(r.Context())
	if err != nil {
		scheduleError(w, err)
		return
	}
	sources := []routines.SourceState{{ID: routines.SourceRoutine, OK: true, Writable: true}}
	if a.opts.GatewayCron != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		jobs, src := a.opts.GatewayCron(ctx)
		cancel()
		list = append(list, jobs...)
		sources = append(sources, src)
	} else {
		sources = append(sources, routines.SourceState{ID: routines.SourceGatewayCron, Error: "OpenClaw is not set up on this server"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"schedules": list, "sources": sources})
}

type scheduleBody struct {
	AgentID  string             `json:"agentId"`
	TeamID   string             `json:"teamId"`
	Spec     *string            `json:"spec"`
	Timezone *string            `json:"timezone"`
	Template *routines.Template `json:"template"`
	Action   string             `json:"action"`
}

func (a *API) createSchedule(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	var body scheduleBody
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.Spec == nil || body.Template == nil {
		writeError(w, http.StatusBadRequest, "spec and template are required")
		return
	}
	if !a.checkRepo(w, r, strings.TrimSpace(body.Template.RepoPath)) {
		return
	}
	team := strings.TrimSpace(body.TeamID)
	if team == "" && a.opts.Teams != nil {
		// The agent's team, when it is in exactly one.
		if ids, err := a.opts.Teams.TeamsOf(r.Context(), body.AgentID); err == nil && len(ids) == 1 {
			team = ids[0]
		}
	}
	n := routines.NewSchedule{AgentID: body.AgentID, TeamID: team, Spec: *body.Spec, Template: *body.Template}
	if body.Timezone != nil {
		n.Timezone = *body.Timezone
	}
	sc, err := a.opts.Routines.Create(r.Context(), n)
	if err != nil {
		scheduleError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"schedule": sc})
}

func (a *API) getSchedule(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	sc, err := a.opts.Routines.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		scheduleError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"schedule": sc})
}

func (a *API) patchSchedule(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	var body scheduleBody
	if !decodeJSON(w, r, &body) {
		return
	}
	id := r.PathValue("id")
	var sc routines.Schedule
	var err error
	switch body.Action {
	case "pause":
		sc, err = a.opts.Routines.Pause(r.Context(), id)
	case "resume":
		sc, err = a.opts.Routines.Resume(r.Context(), id)
	case "":
		if body.Spec == nil && body.Timezone == nil && body.Template == nil {
			writeError(w, http.StatusBadRequest, "nothing to change: give action (pause or resume), spec, timezone or template")
			return
		}
		if body.Template != nil && !a.checkRepo(w, r, strings.TrimSpace(body.Template.RepoPath)) {
			return
		}
		sc, err = a.opts.Routines.Update(r.Context(), id, routines.Patch{Spec: body.Spec, Timezone: body.Timezone, Template: body.Template})
	default:
		writeError(w, http.StatusBadRequest, "action must be pause or resume")
		return
	}
	if err != nil {
		scheduleError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"schedule": sc})
}

func (a *API) deleteSchedule(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	if err := a.opts.Routines.Delete(r.Context(), r.PathValue("id")); err != nil {
		scheduleError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) runSchedule(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	f, err := a.opts.Routines.RunNow(r.Context(), r.PathValue("id"))
	if err != nil {
		scheduleError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"fire": f})
}

func (a *API) scheduleFires(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	limit, ok := pageLimit(w, r.URL.Query())
	if !ok {
		return
	}
	fires, next, err := a.opts.Routines.Fires(r.Context(), r.PathValue("id"), r.URL.Query().Get("before"), limit)
	if err != nil {
		scheduleError(w, err)
		return
	}
	var cursor any
	if next != "" {
		cursor = next
	}
	writeJSON(w, http.StatusOK, map[string]any{"fires": fires, "nextCursor": cursor})
}

func (a *API) previewSchedule(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Spec     string `json:"spec"`
		Timezone string `json:"timezone"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	spec, err := routines.ParseSpec(body.Spec, body.Timezone)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%s", err.Error())
		return
	}
	next := []int64{}
	for _, t := range spec.NextN(time.Now(), 5) {
		next = append(next, t.UnixMilli())
	}
	zone := strings.TrimSpace(body.Timezone)
	if zone == "" {
		zone = routines.MachineZone()
	}
	writeJSON(w, http.StatusOK, map[string]any{"description": routines.Describe(spec), "nextRuns": next, "timezone": zone})
}

func (a *API) getRoutineGrace(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"minutes": int(a.opts.Routines.GraceWindow(r.Context()) / time.Minute)})
}

func (a *API) putRoutineGrace(w http.ResponseWriter, r *http.Request) {
	if !a.routinesReady(w) {
		return
	}
	var body struct {
		Minutes *int `json:"minutes"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.Minutes == nil {
		writeError(w, http.StatusBadRequest, "minutes is required")
		return
	}
	if err := a.opts.Routines.SetGrace(r.Context(), *body.Minutes); err != nil {
		scheduleError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"minutes": *body.Minutes})
}
