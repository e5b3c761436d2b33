package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// MCP session ids. mcp-go's default id manager checks only an id's
// format, so any well-formed id was accepted and its idle TTL cleared
// per-session state but never refused the id. Here every id the servers
// mint is recorded with the server and the owner (the credential and the
// binding) that opened it; a request naming an id that is unknown, idle
// past the TTL, of another server or of another owner is refused with 404
// (the Streamable HTTP answer that makes a client start a new session).
// Revoking or rotating a token drops its sessions.

// Bounds of the session table.
const (
	sessionIdle = 30 * time.Minute // idle TTL: a session unused this long is gone
	maxSessions = 10000            // beyond this the least recently used is dropped
)

// sessionOwner is who opened a session: the token's hash (and kind) and
// the binding.
type sessionOwner struct {
	cred    [32]byte
	kind    credKind
	binding Binding
}

type sessionEntry struct {
	server string
	owner  sessionOwner
	last   time.Time
}

// sessionTable is the Hub's record of live session ids.
type sessionTable struct {
	idle time.Duration
	max  int
	now  func() time.Time
	log  *slog.Logger

	mu        sync.Mutex
	m         map[string]*sessionEntry
	lastPrune time.Time
}

func newSessionTable(idle time.Duration, max int, now func() time.Time, log *slog.Logger) *sessionTable {
	return &sessionTable{idle: idle, max: max, now: now, log: log, m: map[string]*sessionEntry{}}
}

// sessionState is what check found.
type sessionState uint8

const (
	sessionOK sessionState = iota
	sessionUnknown
	sessionExpired
)

// open mints and records a session id for server and o.
func (t *sessionTable) open(srv string, o sessionOwner) string {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw) // crypto/rand does not fail on supported platforms
	id := "mcp-session-" + hex.EncodeToString(raw)
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) >= t.max || now.Sub(t.lastPrune) > t.idle/4 {
		t.pruneLocked(now)
	}
	t.m[id] = &sessionEntry{server: srv, owner: o, last: now}
	// Who attached with what kind of token (never the token): how a
	// person, and the tests, see that runs attach with their own.
	t.log.Debug("MCP session opened", "server", srv, "credential", o.kind.String(),
		"team", o.binding.TeamID, "agent", o.binding.AgentID)
	return id
}

// pruneLocked drops expired sessions, then the least recently used while
// the table is full.
func (t *sessionTable) pruneLocked(now time.Time) {
	t.lastPrune = now
	for id, e := range t.m {
		if now.Sub(e.last) > t.idle {
			delete(t.m, id)
		}
	}
	for len(t.m) >= t.max {
		oldest, at := "", now
		for id, e := range t.m {
			if oldest == "" || e.last.Before(at) {
				oldest, at = id, e.last
			}
		}
		delete(t.m, oldest)
	}
}

// check reports whether id is a live session of srv opened by o, and
// touches it when it is. An idle one is forgotten as it is found.
func (t *sessionTable) check(srv, id string, o sessionOwner) sessionState {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[id]
	switch {
	case !ok || e.server != srv || e.owner != o:
		return sessionUnknown
	case now.Sub(e.last) > t.idle:
		delete(t.m, id)
		return sessionExpired
	}
	e.last = now
	return sessionOK
}

// close forgets id; with an owner, only the owner's own session (allowed
// is false for another owner's, which stays).
func (t *sessionTable) close(srv, id string, o *sessionOwner) (allowed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[id]
	if !ok || e.server != srv {
		return true
	}
	if o != nil && e.owner != *o {
		return false
	}
	delete(t.m, id)
	return true
}

// dropCred forgets every session a token opened.
func (t *sessionTable) dropCred(sum [32]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, e := range t.m {
		if e.owner.cred == sum {
			delete(t.m, id)
		}
	}
}

// count is the number of recorded sessions (tests).
func (t *sessionTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

type ownerKey struct{}

// withOwner records the verified owner of a request for the id manager.
func withOwner(ctx context.Context, o sessionOwner) context.Context {
	return context.WithValue(ctx, ownerKey{}, o)
}

// sessionIDs plugs the table into one server's StreamableHTTPServer. mcp-go
// resolves a manager per request (with the request, whose context carries
// the owner ServeHTTP verified) and with a nil request from its idle
// sweeper.
type sessionIDs struct {
	t   *sessionTable
	srv string
}

var _ server.SessionIdManagerResolver = sessionIDs{}

// ResolveSessionIdManager implements server.SessionIdManagerResolver.
func (s sessionIDs) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	m := sessionManager{t: s.t, srv: s.srv}
	if r != nil {
		m.owner, m.known = r.Context().Value(ownerKey{}).(sessionOwner)
	}
	return m
}

// sessionManager is the table seen by one request (or by the sweeper,
// known false).
type sessionManager struct {
	t     *sessionTable
	srv   string
	owner sessionOwner
	known bool
}

var errUnknownSession = errors.New("unknown MCP session id")

// Generate implements server.SessionIdManager. Without a verified owner
// (which ServeHTTP always sets) the id is not recorded, so it never works.
func (m sessionManager) Generate() string {
	if !m.known {
		return "mcp-session-unrecorded"
	}
	return m.t.open(m.srv, m.owner)
}

// Validate implements server.SessionIdManager: an expired id is
// "terminated", an unknown or foreign one an error (both answer 404).
func (m sessionManager) Validate(id string) (isTerminated bool, err error) {
	if !m.known {
		return false, errUnknownSession
	}
	switch m.t.check(m.srv, id, m.owner) {
	case sessionOK:
		return false, nil
	case sessionExpired:
		return true, nil
	default:
		return false, errUnknownSession
	}
}

// Terminate implements server.SessionIdManager: a client ends its own
// session (another owner's is not allowed); the sweeper ends any.
func (m sessionManager) Terminate(id string) (isNotAllowed bool, err error) {
	if !m.known {
		m.t.close(m.srv, id, nil)
		return false, nil
	}
	return !m.t.close(m.srv, id, &m.owner), nil
}
