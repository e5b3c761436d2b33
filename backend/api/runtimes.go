package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/runtimes"
)

func (a *API) listRuntimes(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.opts.Catalog.List(r.Context()))
}

// runtimeError maps catalog refusals to the API's status codes.
func runtimeError(w http.ResponseWriter, id executor.ID, err error) {
	var ue *runtimes.UserError
	switch {
	case errors.Is(err, runtimes.ErrUnknownRuntime):
		writeError(w, http.StatusNotFound, "unknown runtime '%s'", id)
	case errors.As(err, &ue):
		writeError(w, ue.Status, "%s", ue.Msg)
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// install streams an install as Server-Sent Events (data-only events, as
// the seed specifies). A built-in runtime gets a plain JSON 400 and no
// stream; a second install of the same runtime gets 409. The installer dies
// with this request.
func (a *API) install(w http.ResponseWriter, r *http.Request) {
	id := executor.ID(r.PathValue("id"))
	run, err := a.opts.Catalog.BeginInstall(id)
	switch {
	case errors.Is(err, runtimes.ErrUnknownRuntime):
		writeError(w, http.StatusNotFound, "unknown runtime '%s'", id)
		return
	case errors.Is(err, runtimes.ErrBuiltIn):
		writeError(w, http.StatusBadRequest, "%s is built in — nothing to install", id)
		return
	case errors.Is(err, runtimes.ErrInstalling):
		writeError(w, http.StatusConflict, "an install of %s is already running", id)
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	sse := newSSE(w)
	run(r.Context(), func(ev runtimes.InstallEvent) {
		b, _ := json.Marshal(ev)
		sse.event(0, "", b)
		_ = sse.flush()
	})
}

type connectBody struct {
	APIKey   string `json:"apiKey"`
	Provider string `json:"provider"`
	// BaseURL is, for a health check of a keyless provider, the address
	// to check instead of the configured one (before it is saved).
	BaseURL string `json:"baseUrl"`
}

func (a *API) connect(w http.ResponseWriter, r *http.Request) {
	id := executor.ID(r.PathValue("id"))
	var body connectBody
	if !decodeJSON(w, r, &body) {
		return
	}
	res, err := a.opts.Catalog.Connect(r.Context(), id, body.APIKey, body.Provider)
	if err != nil {
		runtimeError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) disconnect(w http.ResponseWriter, r *http.Request) {
	id := executor.ID(r.PathValue("id"))
	res, err := a.opts.Catalog.Disconnect(r.Context(), id)
	if err != nil {
		runtimeError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) healthcheck(w http.ResponseWriter, r *http.Request) {
	id := executor.ID(r.PathValue("id"))
	var body connectBody
	if !decodeJSON(w, r, &body) {
		return
	}
	res, err := a.opts.Catalog.HealthCheckAt(r.Context(), id, body.Provider, body.APIKey, body.BaseURL)
	var ue *runtimes.UserError
	if errors.As(err, &ue) && ue.Status == http.StatusBadRequest {
		// The seed's shape for refusals of this route: {ok: false, error}.
		writeJSON(w, http.StatusBadRequest, runtimes.HealthResult{OK: false, Error: ue.Msg})
		return
	}
	if err != nil {
		runtimeError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// recheck re-probes a runtime (binary, Codex login) and returns its entry.
func (a *API) recheck(w http.ResponseWriter, r *http.Request) {
	id := executor.ID(r.PathValue("id"))
	if _, ok := a.opts.Catalog.Descriptor(id); !ok {
		writeError(w, http.StatusNotFound, "unknown runtime '%s'", id)
		return
	}
	a.opts.Catalog.Recheck(r.Context(), id)
	e, _ := a.opts.Catalog.Entry(r.Context(), id)
	writeJSON(w, http.StatusOK, e)
}

// ollamaSetting is the body and answer of /api/settings/ollama-base-url:
// the saved Ollama address (null when none), and the native runtime's
// state after a change.
type ollamaSetting struct {
	URL             *string                  `json:"url"`
	ConnectionState runtimes.ConnectionState `json:"connectionState,omitempty"`
}

// GET /api/settings/ollama-base-url: the address saved for a local Ollama
// the environment does not name (OLLAMA_BASE_URL wins over it).
func (a *API) getOllamaURL(w http.ResponseWriter, r *http.Request) {
	var out ollamaSetting
	if u := a.opts.Catalog.OllamaURL(); u != "" {
		out.URL = &u
	}
	writeJSON(w, http.StatusOK, out)
}

// PUT /api/settings/ollama-base-url {url}: saves (null or "" clears) the
// address outside the secrets vault; connecting Ollama stores nothing.
func (a *API) putOllamaURL(w http.ResponseWriter, r *http.Request) {
	var body ollamaSetting
	if !decodeJSON(w, r, &body) {
		return
	}
	raw := ""
	if body.URL != nil {
		raw = *body.URL
	}
	state, err := a.opts.Catalog.SetOllamaURL(r.Context(), raw)
	if err != nil {
		runtimeError(w, executor.Native, err)
		return
	}
	out := ollamaSetting{ConnectionState: state}
	if u := a.opts.Catalog.OllamaURL(); u != "" {
		out.URL = &u
	}
	writeJSON(w, http.StatusOK, out)
}
