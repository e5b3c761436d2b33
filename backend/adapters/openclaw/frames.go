package openclaw

import (
	"encoding/json"
	"fmt"
)

// Protocol is the Gateway wire version this client speaks (min = max).
const Protocol = 4

// frame is one Gateway WebSocket text frame: a request, a response or an
// event (runtimes-protocols.md §4.3).
type frame struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	Method string `json:"method,omitempty"`
	Params any    `json:"params,omitempty"`

	OK      bool            `json:"ok,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Error   *GatewayError   `json:"error,omitempty"`

	Event string `json:"event,omitempty"`
	Seq   int64  `json:"seq,omitempty"`
}

// GatewayError is a response's error.
type GatewayError struct {
	Code         string          `json:"code"`
	Message      string          `json:"message"`
	Retryable    bool            `json:"retryable,omitempty"`
	RetryAfterMs int64           `json:"retryAfterMs,omitempty"`
	Details      json.RawMessage `json:"details,omitempty"`
}

func (e *GatewayError) Error() string {
	return fmt.Sprintf("openclaw gateway: %s: %s", e.Code, e.Message)
}

// Event is one Gateway event as the client hands it to subscribers.
// Names starting with "clawboo." are the client's own: EventConnected and
// EventDisconnected mark the connection coming and going (events may have
// been missed in between).
type Event struct {
	Name    string          `json:"event"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// The client's own events.
const (
	EventConnected    = "clawboo.connected"
	EventDisconnected = "clawboo.disconnected"
)

// challenge is the connect.challenge payload.
type challenge struct {
	Nonce string `json:"nonce"`
	TS    int64  `json:"ts"`
}

// connectParams is the connect request (the device block is signed).
type connectParams struct {
	MinProtocol int          `json:"minProtocol"`
	MaxProtocol int          `json:"maxProtocol"`
	Client      clientInfo   `json:"client"`
	Role        string       `json:"role"`
	Scopes      []string     `json:"scopes"`
	Caps        []string     `json:"caps"`
	Auth        *connectAuth `json:"auth,omitempty"`
	Device      deviceBlock  `json:"device"`
	Locale      string       `json:"locale,omitempty"`
	UserAgent   string       `json:"userAgent,omitempty"`
}

type clientInfo struct {
	ID       string `json:"id"`
	Mode     string `json:"mode"`
	Version  string `json:"version"`
	Platform string `json:"platform"`
}

type connectAuth struct {
	Token string `json:"token,omitempty"`
}

type deviceBlock struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
	SignedAt  int64  `json:"signedAt"`
	Nonce     string `json:"nonce"`
}

// hello is what this client reads of hello-ok.
type hello struct {
	Type     string `json:"type"`
	Protocol int    `json:"protocol"`
	Server   struct {
		Version string `json:"version"`
		ConnID  string `json:"connId"`
	} `json:"server"`
	Policy struct {
		MaxPayload     int64 `json:"maxPayload"`
		TickIntervalMs int64 `json:"tickIntervalMs"`
	} `json:"policy"`
	// Auth is the socket's live authority: the scopes RPC dispatch
	// enforces (which may be fewer than were asked for).
	Auth struct {
		Role   string   `json:"role"`
		Scopes []string `json:"scopes"`
	} `json:"auth"`
	// Features.Methods lists the RPC methods this Gateway serves.
	Features struct {
		Methods []string `json:"methods"`
	} `json:"features"`
}

// Who this client says it is. client.id and client.mode must come from
// the Gateway's fixed lists; "cli"/"cli" is what the measured client used.
const (
	clientID   = "cli"
	clientMode = "cli"
	role       = "operator"
)

// scopes are the operator scopes asked for: read and write for chat,
// admin for config (mcp.servers, agent files), approvals for exec
// approvals.
var scopes = []string{"operator.read", "operator.write", "operator.admin", "operator.approvals"}

// caps: without tool-events the connection receives no live tool events;
// exec-approvals makes it an approval client, so runs wait for our answer
// instead of being denied as headless.
var caps = []string{"tool-events", "exec-approvals"}
