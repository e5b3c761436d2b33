package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/devices"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// The phone's listener (issue 30): a second handler, served over TLS on
// the LAN by the root only while a phone is being paired or is paired. It
// answers the paired page's routes and nothing else of the API:
//
//	GET  /pair, /m, /assets/…        the page (the same frontend build)
//	POST /m/api/pair {code, name}    a one-time code for the device cookie
//	GET  /m/api/approvals            the approvals waiting
//	POST /m/api/approvals/{id}/resolve {decision}
//	GET  /m/api/runs                 the runs going
//	POST /m/api/runs/{id}/stop       Stop (final)
//	GET  /m/api/events               live changes (SSE)
//	…/m/api/teams, /m/api/quota      the rooms and the quota (phoneteams.go)
//
// Every request must name one of the listener's own addresses as its Host
// (a rebinding name is refused), a cross-site request (an Origin other
// than the listener's) is refused, and no CORS header is ever sent. All
// but the page and pairing need the device cookie (HttpOnly, Secure,
// SameSite=Strict); a removed device's cookie stops working at once and
// its open stream ends.

// DeviceCookie is the paired device's cookie.
const DeviceCookie = "clawboo_device"

// PhoneOptions wire the phone's handler.
type PhoneOptions struct {
	Devices *devices.Service
	// Hosts are the Host values the listener answers to (its address and
	// port as the pairing link names them).
	Hosts func() []string
}

type phone struct {
	a   *API
	o   PhoneOptions
	mux *http.ServeMux
	ui  http.Handler
}

type deviceKey struct{}

// PhoneHandler is the phone's listener's handler.
func (a *API) PhoneHandler(o PhoneOptions) http.Handler {
	p := &phone{a: a, o: o, mux: http.NewServeMux(), ui: newUIHandler(a.opts.UI)}
	for _, page := range []string{"GET /pair", "GET /m", "GET /assets/", "GET /favicon.svg", "GET /manifest.webmanifest"} {
		p.mux.Handle(page, p.ui)
	}
	p.mux.HandleFunc("POST /m/api/pair", p.pair)
	p.mux.HandleFunc("GET /m/api/approvals", p.paired(p.approvals))
	p.mux.HandleFunc("POST /m/api/approvals/{id}/resolve", p.paired(p.resolve))
	p.mux.HandleFunc("GET /m/api/runs", p.paired(p.runs))
	p.mux.HandleFunc("POST /m/api/runs/{id}/stop", p.paired(p.stop))
	p.mux.HandleFunc("GET /m/api/events", p.paired(p.events))
	p.teamRoutes()
	return p
}

func (p *phone) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.ownHost(r.Host) {
		writeError(w, http.StatusMisdirectedRequest, "this listener answers only to its own address")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "https://"+r.Host {
		writeError(w, http.StatusForbidden, "cross-site requests are refused")
		return
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		writeError(w, http.StatusForbidden, "cross-site requests are refused")
		return
	}
	if _, pattern := p.mux.Handler(r); pattern == "" {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "send JSON")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	p.mux.ServeHTTP(w, r)
}

// ownHost says host is one the listener answers to.
func (p *phone) ownHost(host string) bool {
	if p.o.Hosts == nil {
		return false
	}
	for _, h := range p.o.Hosts() {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// paired lets a request through only with a paired device's cookie.
func (p *phone) paired(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(DeviceCookie)
		if err != nil {
			writeError(w, http.StatusUnauthorized, "this phone is not paired: open the pairing link the computer shows")
			return
		}
		d, ok := p.o.Devices.Verify(r.Context(), c.Value)
		if !ok {
			writeError(w, http.StatusUnauthorized, "this phone is not paired (or was removed): pair it again from the computer")
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), deviceKey{}, d)))
	}
}

func deviceOf(r *http.Request) devices.Device {
	d, _ := r.Context().Value(deviceKey{}).(devices.Device)
	return d
}

// pair: POST /m/api/pair {code, name} → 200 {device} and the cookie. Every
// refused code is answered alike.
func (p *phone) pair(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Code string `json:"code"`
		Name string `json:"name"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	d, token, err := p.o.Devices.Pair(r.Context(), body.Code, body.Name)
	switch {
	case errors.Is(err, devices.ErrName):
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	case errors.Is(err, devices.ErrClosed):
		writeError(w, http.StatusForbidden, "%v", err)
		return
	case errors.Is(err, devices.ErrWrongCode), errors.Is(err, devices.ErrExpired), errors.Is(err, devices.ErrNoPairing):
		writeError(w, http.StatusForbidden, "this pairing link is not valid (used, expired or mistyped): start a new one on the computer")
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: DeviceCookie, Value: token, Path: "/", HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode, MaxAge: 400 * 24 * 3600})
	p.a.opts.Log.Info("a phone was paired", "device", d.Name, "from", remoteIP(r))
	p.a.recordDevice(r.Context(), approval.PhonePaired(d.Name, remoteIP(r)))
	writeJSON(w, http.StatusOK, map[string]any{"device": d})
}

func (p *phone) approvals(w http.ResponseWriter, r *http.Request) {
	if !p.a.approvalsReady(w) {
		return
	}
	ps, err := p.a.opts.Approvals.Pending(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	out := make([]phoneApproval, 0, len(ps))
	for _, q := range ps {
		out = append(out, p.named(r.Context(), q))
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": out})
}

// phoneApproval is a request as the phone shows it: who asks and where,
// by name ("" when there is none to say).
type phoneApproval struct {
	approval.Request
	AgentName string `json:"agentName"`
	TeamName  string `json:"teamName"`
	HostName  string `json:"hostName"`
}

// phoneApprovalEvent is the phone stream's "approval" event.
type phoneApprovalEvent struct {
	Kind     string        `json:"kind"`
	Approval phoneApproval `json:"approval"`
}

func (p *phone) named(ctx context.Context, q approval.Request) phoneApproval {
	var host string
	if q.RunID != "" {
		if run, err := p.a.opts.Store.GetRun(ctx, q.RunID); err == nil {
			host = deref(run.HostID)
		}
	}
	out := phoneApproval{Request: q}
	out.AgentName, out.TeamName, out.HostName = p.names(ctx, q.AgentID, q.TeamID, host)
	return out
}

// names are an agent's, a team's and a host's names ("" for an id that is
// empty or names nothing).
func (p *phone) names(ctx context.Context, agentID, teamID, hostID string) (agent, team, host string) {
	o := p.a.opts
	if o.Agents != nil && agentID != "" {
		if ag, err := o.Agents.Get(ctx, agentID); err == nil {
			agent = ag.Name
		}
	}
	if o.Teams != nil && teamID != "" {
		if t, err := o.Teams.Get(ctx, teamID); err == nil {
			team = t.Name
		}
	}
	if o.Hosts != nil && hostID != "" {
		if h, err := o.Hosts.Get(ctx, hostID); err == nil {
			host = h.Name
		}
	}
	return agent, team, host
}

// resolve answers an approval from the phone; the history says which.
func (p *phone) resolve(w http.ResponseWriter, r *http.Request) {
	if !p.a.approvalsReady(w) {
		return
	}
	var body struct {
		Decision string `json:"decision"`
		Note     string `json:"note"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	d := approval.Decision(body.Decision)
	if body.Decision == "allow" {
		d = approval.Approve
	}
	if d != approval.Approve && d != approval.Deny {
		writeError(w, http.StatusBadRequest, `decision must be "allow" or "deny"`)
		return
	}
	req, err := p.a.opts.Approvals.Resolve(r.Context(), r.PathValue("id"), d, "phone: "+deviceOf(r).Name, body.Note)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"approval": req})
	case errors.Is(err, approval.ErrNotFound):
		writeError(w, http.StatusNotFound, "no such approval request")
	case errors.Is(err, approval.ErrResolved), errors.Is(err, approval.ErrExpired):
		writeJSON(w, http.StatusConflict, map[string]any{"error": err.Error(), "approval": req})
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// phoneRun is a run going as the phone shows it, its agent, team and host
// by name.
type phoneRun struct {
	runAnswer
	AgentName string `json:"agentName"`
	TeamName  string `json:"teamName"`
	HostName  string `json:"hostName"`
}

func (p *phone) runs(w http.ResponseWriter, r *http.Request) {
	live := p.a.opts.Supervisor.LiveRuns()
	out := make([]phoneRun, 0, len(live))
	for _, run := range live {
		pr := phoneRun{runAnswer: p.a.answerRun(r.Context(), run)}
		pr.AgentName, pr.TeamName, pr.HostName = p.names(r.Context(), deref(run.AgentID), deref(run.TeamID), deref(run.HostID))
		out = append(out, pr)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// stop is a person's Stop from the phone: final, as everywhere.
func (p *phone) stop(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := p.a.opts.Supervisor.Abort(r.Context(), id)
	switch {
	case errors.Is(err, supervisor.ErrUnknownRun):
		writeError(w, http.StatusNotFound, "no such run")
	case errors.Is(err, supervisor.ErrRunFinished):
		writeError(w, http.StatusConflict, "the run already finished")
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		p.a.opts.Log.Info("a run was stopped from a phone", "run", id, "device", deviceOf(r).Name)
		writeJSON(w, http.StatusAccepted, map[string]any{"ok": true, "runId": id})
	}
}

// events streams approval, run, room and quota changes until the device
// is removed (its last event is "revoked"), the client goes, or the server
// stops.
func (p *phone) events(w http.ResponseWriter, r *http.Request) {
	d := deviceOf(r)
	revoked := p.o.Devices.Revoked.Subscribe(4)
	defer revoked.Close()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	out := make(chan streamEvent, 64)
	gone := make(chan struct{})
	go func() {
		for {
			select {
			case id, ok := <-revoked.C():
				if !ok { // a dropped watch ends the stream too: it fails closed
					close(gone)
					return
				}
				if id == d.ID { // the page is told why its stream ends, then it ends
					// A page that does not read is not waited for: its
					// stream ends without the word.
					late := time.After(time.Second)
					for _, ev := range []streamEvent{{name: "revoked", data: []byte("{}")}, {}} {
						select {
						case out <- ev:
						case <-late:
							close(gone)
							return
						case <-ctx.Done():
							return
						}
					}
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	if p.a.opts.Approvals != nil {
		// Each request comes with its names, so the page shows it without
		// asking again.
		forward(ctx, p.a.opts.Approvals.Subscribe(64), out, func(ev approval.Event) (string, []byte) {
			return named[phoneApprovalEvent]("approval")(phoneApprovalEvent{Kind: ev.Kind, Approval: p.named(ctx, ev.Approval)})
		})
	}
	forward(ctx, p.a.opts.Supervisor.Updates.Subscribe(256), out, named[store.Run]("run"))
	p.forwardRooms(ctx, out)
	pump(ctx, w, out, gone)
}

// remoteIP is a request's peer address without its port.
func remoteIP(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}
