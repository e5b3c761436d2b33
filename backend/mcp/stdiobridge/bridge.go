package stdiobridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// notifyTimeout bounds one notification's POST: notifications are sent in
// order between the reads, so a stuck one would stop the reading.
const notifyTimeout = 30 * time.Second

// minGuardedToken is the shortest token writeLine scrubs from whole lines:
// replacing a shorter one could hit the JSON's own keys (Clawboo's tokens
// are 43 characters). Error messages are scrubbed whatever its length.
const minGuardedToken = 16

// nullID is the id of an answer to a message whose id is unknown.
var nullID = json.RawMessage("null")

// bridge is one Run's state.
type bridge struct {
	tr    *transport.StreamableHTTP
	token string
	stop  context.CancelFunc // ends the run when out fails

	mu     sync.Mutex // serialises writes to out and guards failed
	out    io.Writer
	failed error

	wg  sync.WaitGroup // the request goroutines
	sem chan struct{}  // one slot per request in flight
}

// response is a JSON-RPC response as written to out: the id is the
// client's own bytes, so it comes back exactly as sent.
type response struct {
	JSONRPC string                   `json:"jsonrpc"`
	ID      json.RawMessage          `json:"id"`
	Result  json.RawMessage          `json:"result,omitempty"`
	Error   *mcp.JSONRPCErrorDetails `json:"error,omitempty"`
}

// serve handles lines until in ends (nil), reading in fails (that error)
// or ctx ends (nil: Run tells why).
func (b *bridge) serve(ctx context.Context, lines <-chan line) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			switch {
			case !ok:
				return nil
			case l.err != nil:
				return fmt.Errorf("stdiobridge: reading stdin: %w", l.err)
			}
			b.handle(ctx, l)
		}
	}
}

// handle takes one line: answers what is not a message, forwards requests
// and notifications, and ignores the rest (the client's responses).
func (b *bridge) handle(ctx context.Context, l line) {
	if l.tooLong {
		b.writeError(nullID, mcp.PARSE_ERROR, fmt.Sprintf("parse error: the message is too large (over %d bytes)", MaxLine))
		return
	}
	if len(bytes.TrimSpace(l.data)) == 0 {
		return
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(l.data, &msg); err != nil || msg == nil {
		b.writeError(nullID, mcp.PARSE_ERROR, "parse error: "+parseProblem(err))
		return
	}
	rawMethod, hasMethod := msg["method"]
	if !hasMethod {
		return // a response to a request the bridge never forwards
	}
	rawID, hasID := msg["id"]
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil || method == "" {
		b.writeError(idOrNull(rawID, hasID), mcp.INVALID_REQUEST, "invalid request: the method is not a non-empty string")
		return
	}
	if !hasID {
		b.notify(ctx, method, msg["params"])
		return
	}
	var id mcp.RequestId
	if err := json.Unmarshal(rawID, &id); err != nil || id.IsNil() {
		b.writeError(nullID, mcp.INVALID_REQUEST, "invalid request: the id is not a string or a number")
		return
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method}
	if params, ok := msg["params"]; ok {
		req.Params = params
	}
	b.request(ctx, rawID, req)
}

// parseProblem says in words why a line is not a message.
func parseProblem(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Sprintf("%v (at byte %d)", err, syntax.Offset)
	}
	return "a message is one JSON object"
}

// idOrNull is a message's id, or null when it has none or an unusable one.
func idOrNull(raw json.RawMessage, ok bool) json.RawMessage {
	var id mcp.RequestId
	if !ok || json.Unmarshal(raw, &id) != nil || id.IsNil() {
		return nullID
	}
	return raw
}

// request forwards one request in a goroutine of its own, once one of the
// maxInFlight slots is free, and writes its answer.
func (b *bridge) request(ctx context.Context, rawID json.RawMessage, req transport.JSONRPCRequest) {
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	b.wg.Go(func() {
		defer func() { <-b.sem }()
		resp, err := b.tr.SendRequest(ctx, req)
		if ctx.Err() != nil {
			return // the bridge is ending: nobody waits for the answer
		}
		if err != nil {
			b.writeError(rawID, mcp.INTERNAL_ERROR, b.failure(req.Method, err))
			return
		}
		if req.Method == string(mcp.MethodInitialize) && resp.Error == nil {
			b.noteVersion(resp.Result)
		}
		out := response{JSONRPC: mcp.JSONRPC_VERSION, ID: rawID, Result: resp.Result, Error: resp.Error}
		if out.Error == nil && len(out.Result) == 0 {
			out.Result = json.RawMessage("{}")
		}
		b.writeLine(out)
	})
}

// noteVersion hands the transport the protocol version initialize settled
// on, which it then sends as MCP-Protocol-Version, as an MCP client must.
func (b *bridge) noteVersion(result json.RawMessage) {
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &init) == nil && init.ProtocolVersion != "" {
		b.tr.SetProtocolVersion(init.ProtocolVersion)
	}
}

// failure says in words why a request got no answer, without the token.
func (b *bridge) failure(method string, err error) string {
	var why string
	switch {
	case errors.Is(err, transport.ErrAuthorizationRequired):
		why = "the MCP endpoint refused the token (401 Unauthorized)"
	case errors.Is(err, transport.ErrSessionTerminated):
		why = "the MCP endpoint no longer knows this session (404): initialize again"
	default:
		why = "the MCP endpoint could not be used: " + err.Error()
	}
	return scrub(fmt.Sprintf("%s failed: %s", method, why), b.token)
}

// notify forwards one notification, in order. A notification has no
// answer, so one the endpoint refuses is dropped.
func (b *bridge) notify(ctx context.Context, method string, rawParams json.RawMessage) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}}
	if len(rawParams) > 0 && string(rawParams) != "null" {
		if err := json.Unmarshal(rawParams, &n.Params); err != nil {
			return // params that are not an object: no MCP notification has them
		}
		if len(n.Params.Meta) == 0 {
			n.Params.Meta = nil // else it would go out as "_meta":{}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	_ = b.tr.SendNotification(ctx, n)
}

// forwardNotification writes a notification the endpoint sent.
func (b *bridge) forwardNotification(n mcp.JSONRPCNotification) {
	if n.JSONRPC == "" {
		n.JSONRPC = mcp.JSONRPC_VERSION
	}
	if len(n.Params.Meta) == 0 {
		n.Params.Meta = nil
	}
	b.writeLine(n)
}

// writeError writes a JSON-RPC error response.
func (b *bridge) writeError(id json.RawMessage, code int, message string) {
	b.writeLine(response{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      id,
		Error:   &mcp.JSONRPCErrorDetails{Code: code, Message: scrub(message, b.token)},
	})
}

// writeLine writes one message as one line. The first failed write ends
// the run: the client is gone.
func (b *bridge) writeLine(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return // every value written is built from valid JSON
	}
	if len(b.token) >= minGuardedToken {
		data = bytes.ReplaceAll(data, []byte(b.token), []byte("[redacted]"))
	}
	data = append(data, '\n')
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failed != nil {
		return
	}
	if _, err := b.out.Write(data); err != nil {
		b.failed = fmt.Errorf("stdiobridge: writing stdout: %w", err)
		b.stop()
	}
}

// writeErr is why writing out failed, if it did.
func (b *bridge) writeErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failed
}
