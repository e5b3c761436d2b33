package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/internal/testkit"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeacp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "fakeacp")
	if err := testkit.GoBuild("github.com/clawboo/desktop/backend/fakes/fakeacp", bin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// testClient is the client side: it records what the fake sends and
// answers its requests.
type testClient struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	chunks  []string      // agent_message_chunk texts
	updates []acp.SessionUpdate
	writes  []acp.WriteTextFileRequest
	asks    []acp.RequestPermissionRequest
	terms   []acp.CreateTerminalRequest
	// answer, when set, picks the permission outcome; default allow-once.
	answer func(ctx context.Context) acp.RequestPermissionOutcome
}

func (c *testClient) note(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// await waits until cond (called under the lock) holds or ctx ends.
func (c *testClient) await(ctx context.Context, cond func() bool) error {
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *testClient) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.await(ctx, cond); err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func (c *testClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.note(func() {
		c.updates = append(c.updates, n.Update)
		if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			c.chunks = append(c.chunks, m.Content.Text.Text)
		}
	})
	return nil
}

func (c *testClient) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.note(func() { c.asks = append(c.asks, p) })
	if c.answer != nil {
		return acp.RequestPermissionResponse{Outcome: c.answer(ctx)}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Selected: &acp.RequestPermissionOutcomeSelected{OptionId: "allow-once", Outcome: "selected"},
	}}, nil
}

func (c *testClient) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.note(func() { c.writes = append(c.writes, p) })
	return acp.WriteTextFileResponse{}, nil
}

func (c *testClient) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if p.Path == "missing" {
		return acp.ReadTextFileResponse{}, acp.NewInvalidParams(map[string]any{"error": "no such file"})
	}
	return acp.ReadTextFileResponse{Content: "content of " + p.Path}, nil
}

func (c *testClient) CreateTerminal(_ context.Context, p acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	c.note(func() { c.terms = append(c.terms, p) })
	return acp.CreateTerminalResponse{TerminalId: "term-1"}, nil
}

func (c *testClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, nil
}

func (c *testClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{Output: "hi"}, nil
}

func (c *testClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, nil
}

func (c *testClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{ExitCode: acp.Ptr(0)}, nil
}

// chunksSince returns the message chunks from index i on.
func (c *testClient) chunksSince(i int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.chunks[i:]...)
}

func (c *testClient) mark() (chunks, updates int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.chunks), len(c.updates)
}

// pacedReader hands the SDK one line per Read and holds a session/update
// back while maxLag of them wait to be handled. The SDK's client side
// closes the connection once 1024 notifications queue up unhandled, which
// !flood does when its decoding lags the reading (seen under -race).
type pacedReader struct {
	ctx  context.Context
	r    *bufio.Reader
	c    *testClient
	sent int    // session/update lines handed over
	rest []byte // the part of the current line not yet read
}

const maxLag = 256

func (p *pacedReader) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		line, err := p.r.ReadBytes('\n')
		if len(line) == 0 {
			return 0, err
		}
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","method":"session/update"`)) {
			p.sent++
			if err := p.c.await(p.ctx, func() bool { return len(p.c.updates) >= p.sent-maxLag }); err != nil {
				return 0, err
			}
		}
		p.rest = line
	}
	n := copy(b, p.rest)
	p.rest = p.rest[n:]
	return n, nil
}

type fake struct {
	t      *testing.T
	ctx    context.Context
	cmd    *exec.Cmd
	conn   *acp.ClientSideConnection
	client *testClient
	exited chan struct{} // closed once the process has ended
	err    error         // what Wait returned, set before exited closes
}

// start runs the fake with env added to the environment.
func start(t *testing.T, env ...string) *fake {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &fake{t: t, ctx: ctx, cmd: cmd, client: &testClient{changed: make(chan struct{})}, exited: make(chan struct{})}
	paced := &pacedReader{ctx: ctx, r: bufio.NewReader(stdout), c: f.client}
	f.conn = acp.NewClientSideConnection(f.client, stdin, paced)
	f.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	go func() {
		f.err = cmd.Wait()
		close(f.exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-f.exited:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("fakeacp did not exit when stdin closed")
		}
	})
	return f
}

// wait returns the exit code once the process has ended.
func (f *fake) wait() int {
	f.t.Helper()
	select {
	case <-f.exited:
		var ee *exec.ExitError
		if errors.As(f.err, &ee) {
			return ee.ExitCode()
		}
		if f.err != nil {
			f.t.Fatal(f.err)
		}
		return 0
	case <-f.ctx.Done():
		f.t.Fatal("fakeacp did not exit")
		return -1
	}
}

func (f *fake) initialize() acp.InitializeResponse {
	f.t.Helper()
	resp, err := f.conn.Initialize(f.ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
	})
	if err != nil {
		f.t.Fatalf("initialize: %v", err)
	}
	return resp
}

func (f *fake) newSession() acp.SessionId {
	f.t.Helper()
	resp, err := f.conn.NewSession(f.ctx, acp.NewSessionRequest{Cwd: f.t.TempDir(), McpServers: []acp.McpServer{}})
	if err != nil {
		f.t.Fatalf("session/new: %v", err)
	}
	return resp.SessionId
}

// prompt runs one turn and returns its stop reason and the message chunks
// it said.
func (f *fake) prompt(sid acp.SessionId, text string) (acp.StopReason, []string) {
	f.t.Helper()
	before, _ := f.client.mark()
	resp, err := f.conn.Prompt(f.ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		f.t.Fatalf("prompt %q: %v", text, err)
	}
	return resp.StopReason, f.client.chunksSince(before)
}

func (f *fake) expectSaid(sid acp.SessionId, text string, want ...string) {
	f.t.Helper()
	reason, said := f.prompt(sid, text)
	if reason != acp.StopReasonEndTurn || strings.Join(said, "|") != strings.Join(want, "|") {
		f.t.Fatalf("prompt %q: stop %q, said %q; want end_turn, %q", text, reason, said, want)
	}
}
