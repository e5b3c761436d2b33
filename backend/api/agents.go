package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/supervisor"
)

// MaxChatMessage bounds one 1:1 chat message.
const MaxChatMessage = 64 << 10

// agentsReady answers 503 when the agents service is not wired.
func (a *API) agentsReady(w http.ResponseWriter) bool {
	if a.opts.Agents == nil {
		writeError(w, http.StatusServiceUnavailable, "agents are not available in this build")
		return false
	}
	return true
}

// agentError maps the agents package's errors to statuses; id names the
// agent in a 404.
func agentError(w http.ResponseWriter, id string, err error) {
	switch {
	case agents.IsInvalid(err):
		writeError(w, http.StatusBadRequest, "%s", strings.TrimPrefix(err.Error(), "invalid: "))
	case errors.Is(err, agents.ErrNotFound):
		writeError(w, http.StatusNotFound, "unknown agent '%s'", id)
	case errors.Is(err, agents.ErrBusy):
		writeError(w, http.StatusConflict, "agent '%s' has a live run: stop it first", id)
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// agentID reads and checks the {id} path value, answering 404 itself for
// one that cannot be an agent id.
func agentID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !agentIDPattern().MatchString(id) {
		writeError(w, http.StatusNotFound, "unknown agent '%s'", truncate(id, 64))
		return "", false
	}
	return id, true
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func (a *API) listAgents(w http.ResponseWriter, r *http.Request) {
	if !a.agentsReady(w) {
		return
	}
	list, err := a.opts.Agents.List(r.Context())
	if err != nil {
		agentError(w, "", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": list})
}

func (a *API) createAgent(w http.ResponseWriter, r *http.Request) {
	if !a.agentsReady(w) {
		return
	}
	var in agents.Input
	if !decodeJSON(w, r, &in) {
		return
	}
	ag, err := a.opts.Agents.Create(r.Context(), in)
	if err != nil {
		agentError(w, "", err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"agent": ag})
}

func (a *API) getAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentID(w, r)
	if !ok || !a.agentsReady(w) {
		return
	}
	ag, err := a.opts.Agents.Get(r.Context(), id)
	if err != nil {
		agentError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"agent": ag})
}

func (a *API) patchAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentID(w, r)
	if !ok || !a.agentsReady(w) {
		return
	}
	var in agents.Input
	if !decodeJSON(w, r, &in) {
		return
	}
	ag, err := a.opts.Agents.Update(r.Context(), id, in)
	if err != nil {
		agentError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"agent": ag})
}

// deleteAgent refuses an agent with a live run in this process (409); its
// finished runs keep their history with the agent id cleared.
func (a *API) deleteAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentID(w, r)
	if !ok || !a.agentsReady(w) {
		return
	}
	if err := a.opts.Agents.Delete(r.Context(), id); err != nil {
		agentError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// chatAgent starts one turn of the agent's 1:1 conversation: a run like
// any other (stream it from /api/runs/{runId}/events) whose session key,
// "agent:<id>:chat", lets the runtime continue the same session.
func (a *API) chatAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentID(w, r)
	if !ok || !a.agentsReady(w) {
		return
	}
	var body struct {
		Message string `json:"message"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if strings.TrimSpace(body.Message) == "" {
		writeError(w, http.StatusBadRequest, "message is required")
		return
	}
	if len(body.Message) > MaxChatMessage {
		writeError(w, http.StatusBadRequest, "message is over %d bytes", MaxChatMessage)
		return
	}
	ag, err := a.opts.Agents.Get(r.Context(), id)
	if err != nil {
		agentError(w, id, err)
		return
	}
	p := supervisor.StartParams{
		RuntimeID: executor.ID(ag.Runtime), AgentID: ag.ID, Message: body.Message, SessionKey: "agent:" + ag.ID + ":chat",
	}
	if ag.Runtime != agents.Native {
		// A native run reads its model from the agent's config.
		p.Model = ag.Model
	}
	h, err := a.opts.Supervisor.Start(r.Context(), p)
	if startFailed(w, p.RuntimeID, true, err) {
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"runId": h.ID})
}

func (a *API) getDefaultProvider(w http.ResponseWriter, r *http.Request) {
	if !a.agentsReady(w) {
		return
	}
	p, err := a.opts.Agents.DefaultProvider(r.Context())
	if err != nil {
		agentError(w, "", err)
		return
	}
	var out *string
	if p != "" {
		out = &p
	}
	writeJSON(w, http.StatusOK, map[string]any{"provider": out})
}

// putDefaultProvider records (or, with null or "", clears) the provider a
// native agent created without one takes.
func (a *API) putDefaultProvider(w http.ResponseWriter, r *http.Request) {
	if !a.agentsReady(w) {
		return
	}
	var body struct {
		Provider *string `json:"provider"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	p := ""
	if body.Provider != nil {
		p = strings.TrimSpace(*body.Provider)
	}
	if err := a.opts.Agents.SetDefaultProvider(r.Context(), p); err != nil {
		agentError(w, "", err)
		return
	}
	a.getDefaultProvider(w, r)
}

func (a *API) agentRoutes() {
	a.mux.Handle("/api/agents", methods{"GET": a.listAgents, "POST": a.createAgent})
	a.mux.Handle("/api/agents/{id}", methods{"GET": a.getAgent, "PATCH": a.patchAgent, "DELETE": a.deleteAgent})
	a.mux.Handle("/api/agents/{id}/chat", methods{"POST": a.chatAgent})
	a.mux.Handle("/api/settings/default-native-provider", methods{"GET": a.getDefaultProvider, "PUT": a.putDefaultProvider})
}
