package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// inProcessTransport is mcp-go's in-process transport less one needless
// JSON round trip: mcp-go's encodes the server's whole answer and decodes
// it again into an envelope, only for the client to decode the result a
// second time. Here a successful answer's result is encoded once and handed
// to the client as the envelope's raw result; the client still decodes it
// as it would from any transport, so callers see the same values. Errors
// and any other answer take mcp-go's full round trip unchanged.
//
// Everything else (the server-side session registered on Start and
// unregistered on Close, notifications forwarded to the client, a
// closed transport refusing to start) is what mcp-go's own in-process
// transport does, without sampling, elicitation or roots handlers, which
// NewInProcessClient does not set either.
type inProcessTransport struct {
	srv *server.MCPServer
	id  string

	mu      sync.Mutex
	session *server.InProcessSession
	started bool
	closed  bool

	notifyMu sync.RWMutex
	onNotify func(mcp.JSONRPCNotification)

	done      chan struct{}
	closeOnce sync.Once
}

var _ transport.Interface = (*inProcessTransport)(nil)

func newInProcessTransport(s *server.MCPServer) *inProcessTransport {
	return &inProcessTransport{srv: s, id: s.GenerateInProcessSessionID(), done: make(chan struct{})}
}

func (t *inProcessTransport) Start(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrTransportClosed
	}
	if t.started {
		return nil
	}
	session := server.NewInProcessSessionWithHandlers(t.id, nil, nil, nil)
	if err := t.srv.RegisterSession(ctx, session); err != nil {
		return fmt.Errorf("failed to register session: %w", err)
	}
	t.session, t.started = session, true
	go t.forwardNotifications(session)
	return nil
}

func (t *inProcessTransport) forwardNotifications(session *server.InProcessSession) {
	ch := session.ClientNotifications()
	for {
		select {
		case <-t.done:
			return
		case n, ok := <-ch:
			if !ok {
				return
			}
			t.notifyMu.RLock()
			h := t.onNotify
			t.notifyMu.RUnlock()
			if h != nil {
				h(n)
			}
		}
	}
}

func (t *inProcessTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	raw = append(raw, '\n')
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if session != nil {
		ctx = t.srv.WithContext(ctx, session)
	}
	msg := t.srv.HandleMessage(ctx, raw)
	if r, ok := msg.(mcp.JSONRPCResponse); ok {
		result, err := json.Marshal(r.Result)
		if err != nil {
			return nil, fmt.Errorf("failed to marshal response message: %w", err)
		}
		return &transport.JSONRPCResponse{JSONRPC: r.JSONRPC, ID: r.ID, Result: result}, nil
	}
	// An error (its data decoded as a client would see it) or anything
	// else: the full round trip, exactly as mcp-go's transport does.
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal response message: %w", err)
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		return nil, fmt.Errorf("failed to unmarshal response message: %w", err)
	}
	return &resp, nil
}

func (t *inProcessTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	raw, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("failed to marshal notification: %w", err)
	}
	t.srv.HandleMessage(ctx, append(raw, '\n'))
	return nil
}

func (t *inProcessTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.notifyMu.Lock()
	t.onNotify = h
	t.notifyMu.Unlock()
}

func (t *inProcessTransport) Close() error {
	t.mu.Lock()
	t.closed = true
	session := t.session
	t.mu.Unlock()
	t.closeOnce.Do(func() { close(t.done) })
	if session != nil {
		t.srv.UnregisterSession(context.Background(), t.id)
	}
	return nil
}

func (t *inProcessTransport) GetSessionId() string { return "" }
