package stdiobridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The harness: a real MCP endpoint and a bridge run driven line by line.

const (
	goodToken  = "clawboo-test-token-0123456789abcdef"
	wrongToken = "clawboo-wrong-token-fedcba987654321"
	deadline   = 10 * time.Second
)

// endpoint is a real mcp-go Streamable HTTP server (stateful, so the
// session id must be kept; resumable, so its answers with notifications are
// SSE streams with event ids) behind a bearer check, with the tools echo
// (which logs a notification first) and wait (which blocks until its
// request is abandoned).
type endpoint struct {
	url     string
	waiting chan struct{} // a wait call has started

	mu      sync.Mutex
	refused []string // requests without the right token
	deletes int      // authorised DELETEs: the bridge closing its session
}

func newEndpoint(t *testing.T) *endpoint {
	t.Helper()
	e := &endpoint{waiting: make(chan struct{}, 16)}
	srv := server.NewMCPServer("clawboo-test", "1.0.0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			_ = srv.SendNotificationToClient(ctx, "notifications/message",
				map[string]any{"level": "info", "logger": "echo", "data": "echoing"})
			return mcp.NewToolResultText(text), nil
		})
	srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		e.waiting <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	// The event store makes the server deliver a notification sent just
	// before a tool returns every time: without it, mcp-go's server may drop
	// one its forwarder has taken but not yet written when the answer goes.
	mcpHandler := server.NewStreamableHTTPServer(srv, server.WithStateful(true),
		server.WithEventStore(server.NewInMemoryEventStore()),
		server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+goodToken {
			e.mu.Lock()
			e.refused = append(e.refused, r.Method+" "+r.URL.Path)
			e.mu.Unlock()
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			e.mu.Lock()
			e.deletes++
			e.mu.Unlock()
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	e.url = ts.URL + "/mcp"
	return e
}

func (e *endpoint) counts() (refused []string, deletes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.refused...), e.deletes
}

// sink is a thread-safe stdout that hands over each complete line.
type sink struct {
	mu      sync.Mutex
	all     strings.Builder
	partial []byte
	lines   chan string
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all.Write(p)
	s.partial = append(s.partial, p...)
	for {
		i := strings.IndexByte(string(s.partial), '\n')
		if i < 0 {
			return len(p), nil
		}
		s.lines <- string(s.partial[:i])
		s.partial = s.partial[i+1:]
	}
}

// message is any JSON-RPC message the bridge writes.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// bridgeRun is one Run on a pipe for stdin and a sink for stdout.
type bridgeRun struct {
	t      *testing.T
	stdin  *io.PipeWriter
	out    *sink
	cancel context.CancelFunc
	done   chan error

	once sync.Once
	err  error
}

func startBridge(t *testing.T, url, token string) *bridgeRun {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	r := &bridgeRun{t: t, stdin: pw, out: &sink{lines: make(chan string, 1024)}, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- Run(ctx, pr, r.out, url, token) }()
	t.Cleanup(func() {
		cancel()
		_ = pr.Close() // the caller closes in: this ends a read left blocked
		_ = r.wait()
		r.checkOutput()
	})
	return r
}

// send writes one line to the bridge's stdin.
func (r *bridgeRun) send(s string) {
	r.t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(r.stdin, s+"\n")
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			r.t.Fatalf("writing stdin: %v", err)
		}
	case <-time.After(deadline):
		r.t.Fatalf("the bridge did not read %.60q", s)
	}
}

// next is the next line the bridge writes, decoded.
func (r *bridgeRun) next() message {
	r.t.Helper()
	select {
	case l := <-r.out.lines:
		var m message
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
			r.t.Fatalf("the bridge wrote %q, not a JSON-RPC message (%v)", l, err)
		}
		return m
	case <-time.After(deadline):
		r.t.Fatalf("the bridge wrote nothing in %v", deadline)
		return message{}
	}
}

// response skips notifications up to the next response, which must have
// the id want, and returns it with the notifications' methods.
func (r *bridgeRun) response(want string) (message, []string) {
	r.t.Helper()
	var notes []string
	for {
		m := r.next()
		if m.Method != "" && m.ID == nil {
			notes = append(notes, m.Method)
			continue
		}
		if string(m.ID) != want {
			r.t.Fatalf("got a response with id %s, want %s: %+v", m.ID, want, m)
		}
		return m, notes
	}
}

// result is the response with id want, which must not be an error.
func (r *bridgeRun) result(want string) json.RawMessage {
	r.t.Helper()
	m, _ := r.response(want)
	if m.Error != nil || m.Result == nil {
		r.t.Fatalf("response %s: want a result, got %+v (error %+v)", want, m, m.Error)
	}
	return m.Result
}

// rpcError is the response with id want, which must be an error of code.
func (r *bridgeRun) rpcError(want string, code int) string {
	r.t.Helper()
	m, _ := r.response(want)
	if m.Error == nil || m.Error.Code != code {
		r.t.Fatalf("response %s: want error %d, got %+v (error %+v)", want, code, m, m.Error)
	}
	return m.Error.Message
}

// initialize performs MCP's handshake with id 1.
func (r *bridgeRun) initialize() json.RawMessage {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"stdio-client","version":"0.1"}}}`)
	res := r.result("1")
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

// wait is Run's result, once it has returned.
func (r *bridgeRun) wait() error {
	r.t.Helper()
	r.once.Do(func() {
		select {
		case r.err = <-r.done:
		case <-time.After(deadline):
			r.t.Fatalf("Run did not return in %v", deadline)
		}
	})
	return r.err
}

// eof closes stdin and checks that Run then returns nil.
func (r *bridgeRun) eof() {
	r.t.Helper()
	_ = r.stdin.Close()
	if err := r.wait(); err != nil {
		r.t.Fatalf("Run after stdin EOF = %v, want nil", err)
	}
}

// checkOutput holds for every run: whole lines only, and no token.
func (r *bridgeRun) checkOutput() {
	r.out.mu.Lock()
	defer r.out.mu.Unlock()
	if len(r.out.partial) > 0 {
		r.t.Errorf("stdout ends in a partial line %q", r.out.partial)
	}
	for _, tok := range []string{goodToken, wrongToken} {
		if strings.Contains(r.out.all.String(), tok) {
			r.t.Errorf("a token reached stdout:\n%s", r.out.all.String())
		}
	}
}

// callEcho is a tools/call of echo with text.
func callEcho(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
}

// echoed is the text a tools/call of echo returned.
func echoed(t *testing.T, res json.RawMessage) string {
	t.Helper()
	var call mcp.CallToolResult
	if err := json.Unmarshal(res, &call); err != nil || call.IsError || len(call.Content) != 1 {
		t.Fatalf("tools/call result %s (%v)", res, err)
	}
	text, ok := call.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call content %#v, want text", call.Content[0])
	}
	return text.Text
}

// failingReader fails the test if read.
type failingReader struct{ t *testing.T }

func (f *failingReader) Read([]byte) (int, error) {
	f.t.Error("Run read stdin for an endpoint it cannot use")
	return 0, io.EOF
}

// failingWriter is a stdout whose reader is gone.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
