package openclaw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"time"

	"github.com/coder/websocket"
)

// safeURL is the Gateway URL as it may be shown or logged: scheme, host
// and path, never credentials or a query (where a token could hide).
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// dial opens a socket and performs the connect.challenge handshake.
func (c *Client) dial(ctx context.Context, s Settings) (*wsConn, hello, error) {
	hctx, cancel := context.WithTimeout(ctx, c.o.HandshakeTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(hctx, s.URL, nil)
	if err != nil {
		return nil, hello{}, err
	}
	ws.SetReadLimit(maxFrame)
	fail := func(err error) (*wsConn, hello, error) {
		ws.Close(websocket.StatusNormalClosure, "handshake failed")
		return nil, hello{}, err
	}
	_, b, err := ws.Read(hctx)
	if err != nil {
		return fail(err)
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil || f.Type != "event" || f.Event != "connect.challenge" {
		return fail(fmt.Errorf("openclaw: expected connect.challenge first, got %.80q", b))
	}
	var ch challenge
	if err := json.Unmarshal(f.Payload, &ch); err != nil || ch.Nonce == "" {
		return fail(errors.New("openclaw: connect.challenge without a nonce"))
	}
	id, err := c.identity()
	if err != nil {
		return fail(err)
	}
	p := connectParams{
		MinProtocol: Protocol, MaxProtocol: Protocol,
		Client: clientInfo{ID: clientID, Mode: clientMode, Version: c.version(), Platform: runtime.GOOS},
		Role:   role, Scopes: scopes, Caps: caps, Locale: "en-US", UserAgent: "clawboo-desktop/" + c.version(),
	}
	if s.Token != "" {
		p.Auth = &connectAuth{Token: s.Token}
	}
	signedAt := ch.TS
	if signedAt == 0 {
		signedAt = time.Now().UnixMilli()
	}
	p.Device = deviceBlock{
		ID: id.ID, PublicKey: id.PublicKey(), SignedAt: signedAt, Nonce: ch.Nonce,
		Signature: id.SignV3(SignFields{
			ClientID: clientID, ClientMode: clientMode, Role: role, Scopes: scopes,
			SignedAtMs: signedAt, Token: s.Token, Nonce: ch.Nonce, Platform: runtime.GOOS,
		}),
	}
	req, _ := json.Marshal(frame{Type: "req", ID: "connect", Method: "connect", Params: p})
	if err := ws.Write(hctx, websocket.MessageText, req); err != nil {
		return fail(err)
	}
	for {
		_, b, err := ws.Read(hctx)
		if err != nil {
			return fail(err)
		}
		var r frame
		if json.Unmarshal(b, &r) != nil || r.Type != "res" || r.ID != "connect" {
			continue // an event before hello: nothing to do with it yet
		}
		if !r.OK {
			if r.Error == nil {
				r.Error = &GatewayError{Code: "UNKNOWN", Message: "connect refused"}
			}
			return fail(r.Error)
		}
		var h hello
		if err := json.Unmarshal(r.Payload, &h); err != nil {
			return fail(fmt.Errorf("openclaw: bad hello: %w", err))
		}
		if h.Protocol != 0 && h.Protocol != Protocol {
			return fail(fmt.Errorf("openclaw: the Gateway speaks protocol %d, this client %d", h.Protocol, Protocol))
		}
		return &wsConn{ws: ws, pending: map[string]chan frame{}, dead: make(chan struct{})}, h, nil
	}
}

func (c *Client) version() string {
	if c.o.Version != "" {
		return c.o.Version
	}
	return "dev"
}
