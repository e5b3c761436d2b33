package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/vault"
)

// TaskSecrets is the vault's store of the user's named task secrets
// (*vault.Vault). Values go in and never come out of this API: listings
// are names only.
type TaskSecrets interface {
	SetTaskSecret(ctx context.Context, name, value string) error
	DeleteTaskSecret(ctx context.Context, name string) error
	HasTaskSecret(name string) bool
	TaskSecretNames() []string
	Status() vault.Status
}

// secretRoutes: GET /api/secrets → {secrets: [{name}], backend};
// PUT /api/secrets/{name} {value} → {secret: {name}}; DELETE
// /api/secrets/{name} → 204. A task names the secrets it receives
// (`secrets` on POST|PATCH /api/board).
func (a *API) secretRoutes() {
	a.mux.Handle("/api/secrets", methods{"GET": a.listSecrets})
	a.mux.Handle("/api/secrets/{name}", methods{"PUT": a.putSecret, "DELETE": a.deleteSecret})
}

type secretView struct {
	Name string `json:"name"`
}

func (a *API) listSecrets(w http.ResponseWriter, r *http.Request) {
	if a.opts.Secrets == nil {
		writeError(w, http.StatusServiceUnavailable, "the secrets vault is not available")
		return
	}
	out := []secretView{}
	for _, n := range a.opts.Secrets.TaskSecretNames() {
		out = append(out, secretView{Name: n})
	}
	writeJSON(w, http.StatusOK, map[string]any{"secrets": out, "backend": a.opts.Secrets.Status().Backend})
}

func (a *API) putSecret(w http.ResponseWriter, r *http.Request) {
	if a.opts.Secrets == nil {
		writeError(w, http.StatusServiceUnavailable, "the secrets vault is not available")
		return
	}
	name := r.PathValue("name")
	if msg := secretNameProblem(name); msg != "" {
		writeError(w, http.StatusBadRequest, "%s", msg)
		return
	}
	var body struct {
		Value *string `json:"value"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.Value == nil {
		writeError(w, http.StatusBadRequest, "value is required")
		return
	}
	if err := a.opts.Secrets.SetTaskSecret(r.Context(), name, *body.Value); err != nil {
		if errors.Is(err, vault.ErrInvalid) {
			writeError(w, http.StatusBadRequest, "%v", err)
			return
		}
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"secret": secretView{Name: name}})
}

func (a *API) deleteSecret(w http.ResponseWriter, r *http.Request) {
	if a.opts.Secrets == nil {
		writeError(w, http.StatusServiceUnavailable, "the secrets vault is not available")
		return
	}
	name := r.PathValue("name")
	if vault.TaskSecretName(name) != nil {
		writeError(w, http.StatusBadRequest, "invalid secret name")
		return
	}
	if err := a.opts.Secrets.DeleteTaskSecret(r.Context(), name); err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// secretNameProblem says why a name cannot be a task secret's, or "". The
// name is never echoed (a value may have been pasted into it), except for
// the host's own names, which are words the user recognises.
func secretNameProblem(name string) string {
	if err := vault.TaskSecretName(name); err != nil {
		return err.Error()
	}
	if proc.HostOwned(name) {
		return name + " is a variable Clawboo sets or a program reads at start-up (PATH, HOME, GIT_*, LD_*, CLAWBOO_*, NODE_OPTIONS, …): choose another name"
	}
	for _, p := range config.ProviderEnvVars() {
		if p == name {
			return name + " is a provider key's name: connect the key on the Runtimes page instead"
		}
	}
	return ""
}

// checkTaskSecrets refuses (400) a task that names a secret the vault does
// not hold or that may not be a task secret's; it reports whether the
// request may go on. A task naming no secret always passes.
func (a *API) checkTaskSecrets(w http.ResponseWriter, names []string) bool {
	if len(names) == 0 {
		return true
	}
	if a.opts.Secrets == nil {
		writeError(w, http.StatusServiceUnavailable, "the secrets vault is not available")
		return false
	}
	for _, n := range names {
		if msg := secretNameProblem(n); msg != "" {
			writeError(w, http.StatusBadRequest, "secrets: %s", msg)
			return false
		}
		if !a.opts.Secrets.HasTaskSecret(n) {
			writeError(w, http.StatusBadRequest, "secrets: %s is not in the vault: add it in Settings → Secrets (PUT /api/secrets/%s)", n, n)
			return false
		}
	}
	return true
}
