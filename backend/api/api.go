// Package api is the HTTP face of the backend: REST under /api, live event
// streams (Server-Sent Events), and the built web UI, as one http.Handler
// that the headless server listens with and the desktop mounts as its
// webview's asset handler.
//
// Invariants:
//   - Every response under /api is JSON (or an SSE stream); every error is
//     {"error": "..."} with a fitting status: malformed JSON 400, unknown
//     path or id 404, wrong method 405, body over 1 MiB 413. The HTML page
//     is never returned for an /api path.
//   - Loopback is not a security boundary: a request whose Host is not a
//     loopback name gets 403 (DNS rebinding), and so does a state-changing
//     request whose Origin is not this server's own. Requests the desktop
//     webview makes in-process are marked and exempt from the Host check.
//   - Every request over TCP needs the home's API token (a Bearer header or
//     the login link's session cookie) but GET /api/health, the UI's static
//     assets and the MCP mount: without it, 401 saying how to get in
//     (auth.go). Every route is registered through routeMux, which records
//     it for the test that walks them all.
//   - Handlers never return a secret and never log a request body.
//   - A client that disconnects does not stop a run.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/devices"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	"github.com/clawboo/desktop/backend/notices"
	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/clawboo/desktop/backend/worktree"
)

// MaxBody is the largest request body accepted.
const MaxBody = 1 << 20

// Options wire the API to the rest of the backend.
type Options struct {
	// RunEnv: this is a host's server, which takes the environment a
	// desktop sends with a run (its keys; never recorded).
	RunEnv     bool
	Store      *store.Store
	Supervisor *supervisor.Supervisor
	Catalog    *runtimes.Catalog
	// RuntimesChanged wakes live streams when a runtime's state may have
	// changed (an install finished, a key was connected, a CLI appeared).
	RuntimesChanged *bus.Broker[struct{}]
	// OpenClaw serves the /api/openclaw routes (nil: 503).
	OpenClaw     OpenClawService
	Board        *board.Board
	BoardEvents  *bus.Broker[board.Event]
	Worktrees    *worktree.Manager // nil when git is missing
	Budget       *budget.Ledger
	BudgetEvents *bus.Broker[budget.Event]
	// Approvals is the approvals queue (nil: its routes answer 503).
	Approvals *approval.Queue
	// Hosts are the other machines runs may go to (nil: 503).
	Hosts *hosts.Service
	// Devices are the paired phones; Pairing opens a pairing window (the
	// LAN listener on, on address or the LAN's), DevicesChanged is told
	// when one was removed (the last one turns the listener off). nil:
	// phones cannot be paired here.
	Devices        *devices.Service
	Pairing        func(ctx context.Context, address string) (Pairing, error)
	DevicesChanged func(ctx context.Context)
	// Notices pushes approvals and finished tasks to a person's ntfy topic
	// (nil: its routes answer 503).
	Notices *notices.Service
	// Tools is clawboo-tools' broker: registry, audit, external servers.
	Tools *toolbroker.Broker
	// MCP serves /mcp/{tasks,memory,tools,teamchat} (nil: not mounted).
	MCP http.Handler
	// MCPBaseURL is where MCP clients reach this server (for GET
	// /api/mcp/config); nil or "" uses the request's local address.
	MCPBaseURL func() string
	// Agents manages agents and their native configs (nil: the agents
	// routes answer 503).
	Agents *agents.Service
	// Teams and Orchestrator serve /api/teams and the team rooms (nil: 503);
	// TeamProbes answer mission control's readiness questions.
	Teams        *teams.Service
	Orchestrator *orchestrate.Engine
	TeamProbes   orchestrate.Probes
	// Routines keeps and fires schedules (nil: 503); GatewayCron lists the
	// OpenClaw Gateway's own cron jobs beside them (nil: not set up).
	Routines    *routines.Service
	GatewayCron GatewayCron
	// Quota is the quota ledger and governor (nil: 503); QuotaEvents
	// feeds the "quota" events of /api/events.
	Quota       *quota.Service
	QuotaEvents *bus.Broker[quota.Event]
	// ACPAgents adds and removes a person's own ACP agents (nil: 503).
	ACPAgents ACPAgents
	// Secrets holds the user's named task secrets (nil: 503).
	Secrets TaskSecrets
	// Autostart is "start at login" (its zero value: the process's own
	// environment, OS and binary).
	Autostart config.Autostart
	// UI is the built frontend (the contents of frontend/dist); nil serves
	// a page that says the UI was not built.
	UI fs.FS
	// Auth checks every request over TCP for the home's API token (auth.go;
	// nil: only GET /api/health, the MCP mount and in-process requests pass).
	Auth    *Auth
	Log     *slog.Logger
	Version string
}

// API is the backend's http.Handler.
type API struct {
	opts Options
	mux  *routeMux
	ui   http.Handler
	desk desktop // open.go: the zero value starts real programs
}

// New builds the handler.
func New(opts Options) *API {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	a := &API{opts: opts, mux: newRouteMux()}
	a.ui = newUIHandler(opts.UI)
	a.routes()
	return a
}

type methods map[string]http.HandlerFunc

// ServeHTTP implements http.Handler: it dispatches on method for a path, so a
// known path with the wrong method is a JSON 405 rather than the mux's text.
func (m methods) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := m[r.Method]; ok {
		h(w, r)
		return
	}
	if r.Method == http.MethodHead {
		if h, ok := m[http.MethodGet]; ok {
			h(w, r)
			return
		}
	}
	allow := make([]string, 0, len(m))
	for k := range m {
		allow = append(allow, k)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, http.StatusMethodNotAllowed, "method %s not allowed", r.Method)
}

func (a *API) routes() {
	a.mux.Handle("/api/health", methods{"GET": a.health})
	a.mux.Handle("/api/login-link", methods{"POST": a.postLoginLink})
	a.mux.Handle("/api/runtimes", methods{"GET": a.listRuntimes})
	a.mux.Handle("/api/runtimes/{id}/run", methods{"POST": a.startRun})
	a.mux.Handle("/api/runtimes/{id}/install", methods{"POST": a.install})
	a.mux.Handle("/api/runtimes/{id}/connect", methods{"POST": a.connect})
	a.mux.Handle("/api/runtimes/{id}/disconnect", methods{"POST": a.disconnect})
	a.mux.Handle("/api/runtimes/{id}/healthcheck", methods{"POST": a.healthcheck})
	a.mux.Handle("/api/runtimes/{id}/recheck", methods{"POST": a.recheck})
	a.mux.Handle("/api/acp/agents", methods{"POST": a.addACPAgent})
	a.mux.Handle("/api/acp/agents/{runtimeId}", methods{"DELETE": a.removeACPAgent})
	a.mux.Handle("/api/devices", methods{"GET": a.listDevices})
	a.mux.Handle("/api/devices/pairing", methods{"POST": a.startPairing})
	a.mux.Handle("/api/devices/{id}", methods{"PATCH": a.patchDevice, "DELETE": a.removeDevice})
	a.mux.Handle("/api/hosts", methods{"GET": a.listHosts, "POST": a.addHost})
	a.mux.Handle("/api/hosts/{id}", methods{"GET": a.getHost, "PATCH": a.patchHost, "DELETE": a.removeHost})
	a.mux.Handle("/api/hosts/{id}/trust", methods{"POST": a.trustHost})
	a.mux.Handle("/api/hosts/{id}/check", methods{"POST": a.checkHost})
	a.mux.Handle("/api/hosts/{id}/runtimes/{rt}/install", methods{"POST": a.installOnHost})
	a.mux.Handle("/api/settings/ollama-base-url", methods{"GET": a.getOllamaURL, "PUT": a.putOllamaURL})
	a.mux.Handle("/api/runs", methods{"GET": a.listRuns})
	a.mux.Handle("/api/runs/{id}", methods{"GET": a.getRun})
	a.mux.Handle("/api/runs/{id}/events", methods{"GET": a.runEvents})
	a.mux.Handle("/api/runs/{id}/abort", methods{"POST": a.abortRun})
	a.mux.Handle("/api/runs/{id}/steer", methods{"POST": a.steerRun})
	a.mux.Handle("/api/runs/{id}/model", methods{"POST": a.setRunModel})
	a.mux.Handle("/api/events", methods{"GET": a.liveUpdates})
	a.mux.Handle("/api/board", methods{"GET": a.listTasks, "POST": a.createTask})
	a.mux.Handle("/api/board/{id}", methods{"GET": a.getTask, "PATCH": a.patchTask})
	a.mux.Handle("/api/board/{id}/claim", methods{"POST": a.claimTask})
	a.mux.Handle("/api/board/{id}/comments", methods{"POST": a.addComment})
	a.mux.Handle("/api/board/{id}/deps", methods{"POST": a.addDep})
	a.mux.Handle("/api/board/{id}/deps/{dep}", methods{"DELETE": a.removeDep})
	a.mux.Handle("/api/board/{id}/diff", methods{"GET": a.taskDiff})
	a.mux.Handle("/api/storage", methods{"GET": a.storage})
	a.mux.Handle("/api/storage/retention", methods{"PUT": a.putRetention})
	a.mux.Handle("/api/repos", methods{"GET": a.recentRepos})
	a.mux.Handle("/api/repos/browse", methods{"GET": a.browseRepos})
	a.mux.Handle("/api/budgets", methods{"GET": a.listBudgets, "POST": a.setBudget})
	a.mux.Handle("/api/budgets/{scope}/{id}", methods{"DELETE": a.deleteBudget})
	a.mux.Handle("/api/budgets/{scope}/{id}/resume", methods{"POST": a.resumeBudget})
	a.mux.Handle("/api/spend", methods{"GET": a.spend})
	a.mux.Handle("/api/approvals", methods{"GET": a.listApprovals})
	a.mux.Handle("/api/approvals/{id}", methods{"GET": a.getApproval})
	a.mux.Handle("/api/approvals/{id}/resolve", methods{"POST": a.resolveApproval})
	a.mux.Handle("/api/tools", methods{"GET": a.listTools})
	a.mux.Handle("/api/tools/audit", methods{"GET": a.toolsAudit})
	a.mux.Handle("/api/tools/servers", methods{"GET": a.listToolServers, "POST": a.addToolServer})
	a.mux.Handle("/api/tools/servers/{name}", methods{"DELETE": a.removeToolServer})
	a.mux.Handle("/api/tools/servers/{name}/reconnect", methods{"POST": a.reconnectToolServer})
	a.mux.Handle("/api/mcp/config", methods{"GET": a.mcpConfig})
	a.mux.Handle("/api/mcp/token/rotate", methods{"POST": a.rotateMCPToken})
	a.mux.Handle("/api/openclaw/settings", methods{"GET": a.openClawSettings, "PUT": a.putOpenClawSettings})
	a.mux.Handle("/api/openclaw/status", methods{"GET": a.openClawStatus})
	a.mux.Handle("/api/openclaw/mcp", methods{"POST": a.registerOpenClawMCP})
	a.mux.Handle("/api/openclaw/activity", methods{"GET": a.openClawActivity})
	a.routeTeams()
	a.agentRoutes()
	a.lineCommentRoutes()
	a.openRoutes()
	a.mergeRoutes()
	a.portRoutes()
	a.noticeRoutes()
	a.diskRoutes()
	a.secretRoutes()
	a.scheduleRoutes()
	a.quotaRoutes()
	a.radarRoutes()
	a.autostartRoutes()
	if a.opts.MCP != nil {
		a.mux.Handle("/mcp/", a.opts.MCP)
	}
	a.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	})
	a.mux.Handle("/", a.ui)
}

type inProcessKey struct{}

// MarkInProcess marks a request as made by the desktop's own webview through
// the Wails asset server (never over TCP), exempting it from the Host check.
func MarkInProcess(ctx context.Context) context.Context {
	return context.WithValue(ctx, inProcessKey{}, true)
}

func inProcess(r *http.Request) bool { v, _ := r.Context().Value(inProcessKey{}).(bool); return v }

// ServeHTTP implements http.Handler.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !inProcess(r) && !loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, "forbidden: host %q is not a loopback name", r.Host)
		return
	}
	if !a.gate(w, r) {
		return
	}
	if stateChanging(r.Method) && !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "forbidden: cross-site request")
		return
	}
	if stateChanging(r.Method) && strings.HasPrefix(r.URL.Path, "/api/") && !jsonBody(r) {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported media type: a request body must be application/json")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	a.mux.ServeHTTP(w, r)
}

// jsonBody is the second layer against cross-site requests, for clients
// that send neither Origin nor Sec-Fetch-Site: a browser can send a
// cross-site form or a text/plain body without asking the server first,
// but not an application/json one. So a state-changing API request with a
// body, or with any Content-Type at all, must say application/json; a
// request with neither (POST /abort from curl) carries nothing to refuse.
func jsonBody(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return r.ContentLength == 0 && len(r.TransferEncoding) == 0
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

func stateChanging(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// loopbackHost accepts localhost, 127.0.0.0/8 and ::1, with any port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin allows requests with no Origin (curl, CLIs) and requests whose
// Origin is this very server; it refuses every other site, and any request
// the browser itself labels cross-site.
func sameOrigin(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if inProcess(r) {
		return u.Scheme == "wails" || u.Host == r.Host
	}
	return (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "version": a.opts.Version})
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encode response: %v", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError writes {"error": msg}.
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf(format, args...)})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decodeJSON reads one JSON object into v, answering the error itself and
// returning false when the body is too large, malformed, or trailed by junk.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil {
		switch _, terr := dec.Token(); {
		case terr == io.EOF:
		case terr == nil:
			err = errors.New("unexpected data after the JSON object")
		default:
			err = terr
		}
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "request body over %d bytes", MaxBody)
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "request body must be a JSON object")
	default:
		writeError(w, http.StatusBadRequest, "malformed JSON: %v", err)
	}
	return false
}
