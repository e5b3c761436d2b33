package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// Binding is who a session acts for (defined with the servers' shared call
// types, so that the tools broker and memory read the same fact).
type Binding = toolcall.Binding

// Caller is the identity a tool handler acts for.
type Caller = toolcall.Caller

// Query parameter names of a signed binding on an attach URL.
const (
	qTeam     = "team"
	qAgent    = "agent"
	qDelegate = "delegate"
	qReadOnly = "ro"
	qSig      = "sig"
)

// Signer signs and verifies bindings under the install's binding key.
type Signer struct{ key []byte }

// NewSigner keeps a copy of key.
func NewSigner(key []byte) Signer { return Signer{key: append([]byte(nil), key...)} }

// payload is what a signature covers; the unit separator cannot occur in
// the ids (they are validated before signing).
func payload(b Binding) string {
	return strings.Join([]string{"v1", b.TeamID, b.AgentID, flag(b.Delegate), flag(b.ReadOnly)}, "\x1f")
}

func flag(on bool) string {
	if on {
		return "1"
	}
	return "0"
}

// Sign returns the hex HMAC-SHA256 of the binding.
func (s Signer) Sign(b Binding) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(payload(b)))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a signature in constant time.
func (s Signer) Verify(b Binding, sig string) bool {
	got, err := hex.DecodeString(sig)
	if err != nil || len(s.key) == 0 {
		return false
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(payload(b)))
	return hmac.Equal(got, m.Sum(nil))
}

// Query encodes a signed binding as URL query parameters ("" when unbound).
// The run id is not among them: only the host's own credentials carry it.
func (s Signer) Query(b Binding) string {
	b.RunID = ""
	if b == (Binding{}) {
		return ""
	}
	v := url.Values{}
	if b.TeamID != "" {
		v.Set(qTeam, b.TeamID)
	}
	if b.AgentID != "" {
		v.Set(qAgent, b.AgentID)
	}
	if b.Delegate {
		v.Set(qDelegate, "1")
	}
	if b.ReadOnly {
		v.Set(qReadOnly, "1")
	}
	v.Set(qSig, s.Sign(b))
	return v.Encode()
}

// FromQuery reads a binding from URL query parameters. ok is false when
// binding parameters are present but the signature does not verify (or is
// missing); no parameters at all is an unbound session.
func (s Signer) FromQuery(q url.Values) (b Binding, ok bool) {
	b = Binding{TeamID: q.Get(qTeam), AgentID: q.Get(qAgent), Delegate: q.Get(qDelegate) == "1", ReadOnly: q.Get(qReadOnly) == "1"}
	if b == (Binding{}) && !q.Has(qSig) && !q.Has(qTeam) && !q.Has(qAgent) && !q.Has(qDelegate) && !q.Has(qReadOnly) {
		return Binding{}, true
	}
	if !toolcall.ValidID(b.TeamID) || !toolcall.ValidID(b.AgentID) {
		return Binding{}, false
	}
	return b, s.Verify(b, q.Get(qSig))
}

func parseQuery(q string) (url.Values, error) { return url.ParseQuery(q) }
