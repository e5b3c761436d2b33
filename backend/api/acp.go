package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/runtimes"
)

// ACPAgents adds and removes a person's own ACP agents: each becomes a
// runtime ("acp-…", family acp) listed and run like the others.
type ACPAgents interface {
	Add(ctx context.Context, name, command string, args, envVars []string) (runtimes.Entry, error)
	Remove(ctx context.Context, id executor.ID) error
}

// ErrACPInUse refuses removing an ACP agent that agents still run on.
var ErrACPInUse = errors.New("agents still run on it")

type acpAgentBody struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	EnvVars []string `json:"envVars"`
}

// addACPAgent: POST /api/acp/agents {name, command, args?, envVars?} →
// 201 {runtime}; 400 {error, field} for a command that is not an absolute
// path or a program on PATH, or that holds shell syntax (field says which
// of name, command, args, envVars the words are about).
func (a *API) addACPAgent(w http.ResponseWriter, r *http.Request) {
	if a.opts.ACPAgents == nil {
		writeError(w, http.StatusServiceUnavailable, "ACP agents are not available")
		return
	}
	var body acpAgentBody
	if !decodeJSON(w, r, &body) {
		return
	}
	e, err := a.opts.ACPAgents.Add(r.Context(), body.Name, body.Command, body.Args, body.EnvVars)
	var refused *runtimes.ACPError
	switch {
	case errors.As(err, &refused):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": refused.Error(), "field": refused.Field})
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		a.opts.Log.Warn("an ACP agent was added: Clawboo will start this program for its runs",
			"runtime", e.ID, "command", e.ACP.Command, "args", e.ACP.Args, "from", answeredBy(r))
		writeJSON(w, http.StatusCreated, map[string]any{"runtime": e})
	}
}

// removeACPAgent: DELETE /api/acp/agents/{runtimeId} → 204; 404 for an
// unknown runtime, 409 for one of the catalog's or one agents run on.
func (a *API) removeACPAgent(w http.ResponseWriter, r *http.Request) {
	if a.opts.ACPAgents == nil {
		writeError(w, http.StatusServiceUnavailable, "ACP agents are not available")
		return
	}
	err := a.opts.ACPAgents.Remove(r.Context(), executor.ID(r.PathValue("runtimeId")))
	switch {
	case errors.Is(err, runtimes.ErrUnknownRuntime):
		writeError(w, http.StatusNotFound, "no ACP agent %s", r.PathValue("runtimeId"))
	case errors.Is(err, runtimes.ErrNotCustom), errors.Is(err, ErrACPInUse):
		writeError(w, http.StatusConflict, "%v", err)
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
