package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"sync"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// Credentials: the bearer tokens that open the HTTP servers. There are
// three kinds, so that the token a person pastes into their own MCP client
// is never the one an agent holds:
//
//	install  the install's attach token (vault CLAWBOO_MCP_TOKEN), printed
//	         by `clawboo mcp config` for a person's own clients. Unbound,
//	         or bound by a signed query. It never reaches a runtime, and
//	         RotateToken replaces it.
//	gateway  what an OpenClaw Gateway is registered with: its config is
//	         shared by all its agents, so no URL there can carry one run's
//	         identity, and it is unbound like the install token. It is an
//	         HMAC of the install token under the binding key, so it is
//	         stable across restarts (the Gateway keeps its config), tells
//	         nothing about the install token, and changes when that is
//	         rotated.
//	run      one per CLI run: 32 random bytes, bound to the run's identity,
//	         kept in memory only as its SHA-256, valid until the run ends
//	         (the revoke func IssueRunToken returns). A request with it is
//	         always bound to that identity; a signed query that names
//	         anyone else is refused.
//
// Sessions are tied to the credential that opened them (see sessions.go),
// so a rotated or revoked token also loses its sessions.

// credKind says which kind of token a request carried.
type credKind uint8

const (
	credInstall credKind = iota + 1
	credGateway
	credRun
)

// String names the kind in logs.
func (k credKind) String() string {
	switch k {
	case credInstall:
		return "install"
	case credGateway:
		return "gateway"
	case credRun:
		return "run"
	}
	return "none"
}

// credential is a request's verified token: its kind, its hash (which
// names the sessions it opens) and, for a run token, the run.
type credential struct {
	kind credKind
	sum  [32]byte
	run  *runToken
}

// runToken is one live run's token: its identity, and a context that ends
// when the token is revoked (in-flight requests made with it end too).
type runToken struct {
	binding Binding
	ctx     context.Context
}

// credentials is the Hub's token registry.
type credentials struct {
	key []byte // the binding key: derives the gateway token

	mu       sync.RWMutex
	install  string
	gateway  string
	instSum  [32]byte
	gateSum  [32]byte
	runs     map[[32]byte]*runToken
	rotating sync.Mutex // one rotation at a time (save, then swap)
}

func newCredentials(install string, key []byte) *credentials {
	c := &credentials{key: append([]byte(nil), key...), runs: map[[32]byte]*runToken{}}
	c.setInstall(install)
	return c
}

// gatewayToken derives the Gateway's token from the install token.
func gatewayToken(key []byte, install string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("clawboo-gateway-token\x1fv1\x1f" + install))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// setInstall replaces the install token (and so the gateway token); it
// returns the hashes of the old ones.
func (c *credentials) setInstall(tok string) (oldInstall, oldGateway [32]byte) {
	gw := gatewayToken(c.key, tok)
	c.mu.Lock()
	defer c.mu.Unlock()
	oldInstall, oldGateway = c.instSum, c.gateSum
	c.install, c.gateway = tok, gw
	c.instSum, c.gateSum = sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(gw))
	return oldInstall, oldGateway
}

func (c *credentials) installToken() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.install
}

func (c *credentials) gatewayToken() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gateway
}

// lookup verifies a bearer token. The install and gateway tokens are
// compared in constant time; a run token is found by its hash, which says
// nothing about the token itself.
func (c *credentials) lookup(tok string) (credential, bool) {
	if tok == "" {
		return credential{}, false
	}
	sum := sha256.Sum256([]byte(tok))
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch {
	case subtle.ConstantTimeCompare(sum[:], c.instSum[:]) == 1:
		return credential{kind: credInstall, sum: sum}, true
	case subtle.ConstantTimeCompare(sum[:], c.gateSum[:]) == 1:
		return credential{kind: credGateway, sum: sum}, true
	}
	if rt, ok := c.runs[sum]; ok {
		return credential{kind: credRun, sum: sum, run: rt}, true
	}
	return credential{}, false
}

// NewToken is 32 random bytes, URL-safe base64 (43 characters): every
// MCP secret (install token, binding key, run token) is one.
func NewToken() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// IssueRunToken gives one run its own token, bound to b, and the func that
// revokes it; the caller revokes when the run ends (revoke is idempotent).
// A run must have an identity: an unbound run token would be the install
// token by another name, so the zero Binding is refused.
func (h *Hub) IssueRunToken(b Binding) (token string, revoke func(), err error) {
	if !b.Bound() {
		return "", nil, errors.New("mcp: a run token needs the run's team or agent")
	}
	if !toolcall.ValidID(b.TeamID) || !toolcall.ValidID(b.AgentID) {
		return "", nil, errors.New("mcp: the run's team or agent id is not a valid id")
	}
	tok, err := NewToken()
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256([]byte(tok))
	ctx, cancel := context.WithCancel(context.Background())
	c := h.creds
	c.mu.Lock()
	c.runs[sum] = &runToken{binding: b, ctx: ctx}
	c.mu.Unlock()
	var once sync.Once
	return tok, func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.runs, sum)
			c.mu.Unlock()
			cancel()
			h.sessions.dropCred(sum)
		})
	}, nil
}

// LiveRunTokens is how many run tokens are valid now (tests, health).
func (h *Hub) LiveRunTokens() int {
	h.creds.mu.RLock()
	defer h.creds.mu.RUnlock()
	return len(h.creds.runs)
}

// RotateToken replaces the install token (and with it the gateway token):
// a new random token is saved through Options.SaveToken first, so a token
// the vault did not take is never served, then swapped in; requests and
// sessions with the old ones are refused from then on. It returns the new
// token masked; the token itself is read where it is stored (the vault),
// never from an answer.
func (h *Hub) RotateToken(ctx context.Context) (masked string, err error) {
	c := h.creds
	c.rotating.Lock()
	defer c.rotating.Unlock()
	tok, err := NewToken()
	if err != nil {
		return "", err
	}
	if h.opts.SaveToken != nil {
		if err := h.opts.SaveToken(ctx, tok); err != nil {
			return "", err
		}
	}
	oldInstall, oldGateway := c.setInstall(tok)
	h.sessions.dropCred(oldInstall)
	h.sessions.dropCred(oldGateway)
	h.opts.Log.Info("MCP attach token rotated; clients with the old one must be given the new one")
	if h.opts.Rotated != nil {
		h.opts.Rotated(ctx)
	}
	return MaskToken(tok), nil
}
