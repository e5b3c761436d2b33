package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
)

// OpenClaw: the Gateway connection's settings (URL and token, the token
// only ever masked), the Gateway's state for the OpenClaw card, the
// registration of Clawboo's MCP servers in the Gateway config, and the
// activity feed of OpenClaw runs Clawboo did not start.

// OpenClawSettings is the connection as the settings form shows it.
type OpenClawSettings struct {
	URL string `json:"url"`
	// URLSource is "env" (CLAWBOO_OPENCLAW_URL, which wins), "settings"
	// or "" (none).
	URLSource string `json:"urlSource"`
	TokenSet  bool   `json:"tokenSet"`
	// TokenMasked is "••••" and the token's last 4 characters.
	TokenMasked string `json:"tokenMasked,omitempty"`
	// TokenSource is "env" (CLAWBOO_OPENCLAW_TOKEN), "vault", "openclaw"
	// (OpenClaw's own .env) or "".
	TokenSource string `json:"tokenSource"`
}

// OpenClawSettingsUpdate is the body of PUT /api/openclaw/settings; a nil
// field is left as it is, "" clears it.
type OpenClawSettingsUpdate struct {
	URL   *string `json:"url"`
	Token *string `json:"token"`
}

// ErrOpenClawSettings marks a settings value the service refused (a bad
// URL); the API answers 400 with its message.
var ErrOpenClawSettings = errors.New("invalid OpenClaw settings")

// The card's shapes are the UI's contract (frontend/src/features/openclaw);
// the composition root fills them from the openclaw adapter's Service,
// which the API may not import, and a root test keeps the JSON of both
// the same.

// OpenClawStatus is the OpenClaw card.
type OpenClawStatus struct {
	Connection OpenClawConnection `json:"connection"`
	Settings   OpenClawSettings   `json:"settings"`
	// Health is the runtime's health probe (agents.list within 2 s).
	Health       executor.Health   `json:"health"`
	DefaultAgent string            `json:"defaultAgent,omitempty"`
	Agents       []OpenClawAgent   `json:"agents"`
	LiveRuns     int               `json:"liveRuns"`
	Approvals    int               `json:"pendingApprovals"`
	MCPServers   map[string]string `json:"mcpServers"`
	// MCPRegistered: all of Clawboo's servers are in mcp.servers.
	MCPRegistered bool `json:"mcpRegistered"`
}

// OpenClawConnection is the Gateway connection's state.
type OpenClawConnection struct {
	Status        string `json:"status"` // "disconnected", "connecting", "connected", ...
	URL           string `json:"url,omitempty"`
	Error         string `json:"error,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	Protocol      int    `json:"protocol,omitempty"`
	DeviceID      string `json:"deviceId,omitempty"`
	ConnectedAt   int64  `json:"connectedAt,omitempty"`
	// Attempts counts failed attempts since the last good connection.
	Attempts int `json:"attempts"`
	// NextRetryAt is when the next attempt starts (Unix ms; 0 = none).
	NextRetryAt int64 `json:"nextRetryAt,omitempty"`
}

// OpenClawAgent is one Gateway agent on the card.
type OpenClawAgent struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace,omitempty"`
	Model     string `json:"model,omitempty"`
}

// OpenClawRegistered is what POST /api/openclaw/mcp wrote.
type OpenClawRegistered struct {
	Servers []string `json:"servers"`
	// Hash is the Gateway config's hash after the patch, when it said.
	Hash string `json:"hash,omitempty"`
}

// OpenClawActivity is one tool event from an OpenClaw run Clawboo did not
// start (a cron job, a chat channel, the Gateway's own UI).
type OpenClawActivity struct {
	TS         int64  `json:"ts"`
	SessionKey string `json:"sessionKey"`
	Agent      string `json:"agent"`           // the Gateway agent ("main")
	RunID      string `json:"runId,omitempty"` // the Gateway's run id
	// Event is a tool-call or tool-result (RunID/Seq unset).
	Event executor.Event `json:"event"`
}

// OpenClawService is what the OpenClaw routes need; the composition root
// provides it (Options.OpenClaw; nil answers 503).
type OpenClawService interface {
	Settings(ctx context.Context) OpenClawSettings
	SaveSettings(ctx context.Context, u OpenClawSettingsUpdate) (OpenClawSettings, error)
	// Status is the OpenClaw card: connection, Gateway agents, live runs,
	// pending approvals, registered MCP servers.
	Status(ctx context.Context) OpenClawStatus
	// SubscribeStatus wakes when anything on the card may have changed:
	// the connection, live runs, pending approvals, MCP registration
	// (lossy: re-read Status). The caller closes it.
	SubscribeStatus() *bus.Subscription[struct{}]
	// RegisterMCP writes Clawboo's Memory, Tasks and Tools servers (at
	// baseURL, unbound) into the Gateway config's mcp.servers.
	RegisterMCP(ctx context.Context, baseURL string) (OpenClawRegistered, error)
	// Activity is the recent tool activity, oldest first;
	// SubscribeActivity delivers new entries until the caller closes it
	// (lossy for a slow reader).
	Activity() []OpenClawActivity
	SubscribeActivity() *bus.Subscription[OpenClawActivity]
}

func (a *API) openClaw(w http.ResponseWriter) (OpenClawService, bool) {
	if a.opts.OpenClaw != nil {
		return a.opts.OpenClaw, true
	}
	writeError(w, http.StatusServiceUnavailable, "OpenClaw is not available on this server")
	return nil, false
}

// GET /api/openclaw/settings
func (a *API) openClawSettings(w http.ResponseWriter, r *http.Request) {
	if s, ok := a.openClaw(w); ok {
		writeJSON(w, http.StatusOK, s.Settings(r.Context()))
	}
}

// PUT /api/openclaw/settings {url?, token?}
func (a *API) putOpenClawSettings(w http.ResponseWriter, r *http.Request) {
	s, ok := a.openClaw(w)
	if !ok {
		return
	}
	var u OpenClawSettingsUpdate
	if !decodeJSON(w, r, &u) {
		return
	}
	if u.URL != nil {
		v := strings.TrimSpace(*u.URL)
		u.URL = &v
	}
	if u.Token != nil {
		v := strings.TrimSpace(*u.Token)
		u.Token = &v
	}
	out, err := s.SaveSettings(r.Context(), u)
	switch {
	case errors.Is(err, ErrOpenClawSettings):
		writeError(w, http.StatusBadRequest, "%v", err)
	case err != nil:
		writeError(w, http.StatusInternalServerError, "save the OpenClaw settings: %v", err)
	default:
		writeJSON(w, http.StatusOK, out)
	}
}

// GET /api/openclaw/status: the card as JSON, or with Accept:
// text/event-stream a "status" event now and after every connection
// state change.
func (a *API) openClawStatus(w http.ResponseWriter, r *http.Request) {
	s, ok := a.openClaw(w)
	if !ok {
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		writeJSON(w, http.StatusOK, s.Status(r.Context()))
		return
	}
	wake := s.SubscribeStatus()
	defer wake.Close()
	sse := newSSE(w)
	keep := time.NewTicker(keepAlive)
	defer keep.Stop()
	send := true
	for {
		if send {
			if b, err := json.Marshal(s.Status(r.Context())); err == nil {
				sse.event(0, "status", b)
			}
		}
		if sse.flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case _, ok := <-wake.C():
			if !ok {
				return
			}
			send = true
		case <-keep.C:
			sse.comment("keep-alive")
			send = false
		}
	}
}

// POST /api/openclaw/mcp
func (a *API) registerOpenClawMCP(w http.ResponseWriter, r *http.Request) {
	s, ok := a.openClaw(w)
	if !ok {
		return
	}
	out, err := s.RegisterMCP(r.Context(), a.mcpBase(r))
	if err != nil {
		writeError(w, http.StatusBadGateway, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// GET /api/openclaw/activity: {"activity": [...]} as JSON, or with
// Accept: text/event-stream the recent entries then each new one as an
// "activity" event.
func (a *API) openClawActivity(w http.ResponseWriter, r *http.Request) {
	s, ok := a.openClaw(w)
	if !ok {
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		writeJSON(w, http.StatusOK, map[string]any{"activity": s.Activity()})
		return
	}
	entries := s.SubscribeActivity()
	defer entries.Close()
	sse := newSSE(w)
	if b, err := json.Marshal(s.Activity()); err == nil {
		sse.event(0, "recent", b)
	}
	if sse.flush() != nil {
		return
	}
	keep := time.NewTicker(keepAlive)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-entries.C():
			if !ok {
				return
			}
			b, err := json.Marshal(e)
			if err != nil {
				continue
			}
			sse.event(0, "activity", b)
		case <-keep.C:
			sse.comment("keep-alive")
		}
		if sse.flush() != nil {
			return
		}
	}
}
