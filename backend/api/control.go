package api

import (
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/supervisor"
)

// controlError maps a live-control failure to a status.
func controlError(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, supervisor.ErrUnknownRun):
		writeError(w, http.StatusNotFound, "unknown run '%s'", id)
	case errors.Is(err, supervisor.ErrRunFinished):
		writeError(w, http.StatusConflict, "run '%s' already finished", id)
	case errors.Is(err, supervisor.ErrNotStarted):
		writeError(w, http.StatusConflict, "%v", err)
	case errors.Is(err, executor.ErrUnsupported):
		writeError(w, http.StatusUnprocessableEntity, "this runtime cannot do that: %v", err)
	default:
		writeError(w, http.StatusBadRequest, "%v", err)
	}
}

// steerRun sends a message into a live run: {text, mode?: next|passive}.
// The answer says whether it was delivered, queued for the next turn
// boundary, rejected, or arrived after the run ended.
func (a *API) steerRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var b struct {
		Text string `json:"text"`
		Mode string `json:"mode"`
	}
	if !decodeJSON(w, r, &b) {
		return
	}
	mode := executor.SteerMode(b.Mode)
	switch mode {
	case "":
		mode = executor.SteerNext
	case executor.SteerNext, executor.SteerPassive:
	default:
		writeError(w, http.StatusBadRequest, "mode must be next or passive")
		return
	}
	res, err := a.opts.Supervisor.Steer(r.Context(), id, executor.Steer{Text: b.Text, Mode: mode})
	if err != nil {
		controlError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"runId": id, "result": res})
}

// setRunModel changes the model of a live run's later turns: {model}.
func (a *API) setRunModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var b struct {
		Model string `json:"model"`
	}
	if !decodeJSON(w, r, &b) {
		return
	}
	if err := a.opts.Supervisor.SetModel(r.Context(), id, b.Model); err != nil {
		controlError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"runId": id, "model": b.Model})
}
