// Command fakeacp stands in for an Agent Client Protocol (ACP v1) agent —
// Gemini CLI, OpenCode, claude-code-acp — so the ACP client adapter is
// tested offline against a real child process. It speaks newline-delimited
// JSON-RPC 2.0 on stdin/stdout through the agent side of
// github.com/coder/acp-go-sdk, and reproduces:
//   - initialize: protocolVersion, agentInfo {name "fakeacp", version "1"},
//     no authMethods;
//   - session/new: sessions `fake-session-<n>` (n from 1); a cwd that is
//     not absolute is a JSON-RPC invalid-params error;
//   - authenticate and session/set_mode answer ok; session/load only when
//     advertised (FAKEACP_LOAD); other methods are "method not found";
//   - session/prompt plays the directives in its text (see directives.go);
//     session/cancel ends the running turn with stopReason cancelled (a
//     second prompt on a session cancels the first: the SDK's doing), and a
//     prompt on an unknown session is an invalid-params error;
//   - the process exits when stdin closes; the SDK cancels a running turn
//     then, and logs its diagnostics to stderr.
//
// Environment:
//
//	FAKEACP_VERSION=N     answer initialize with protocolVersion N (default 1)
//	FAKEACP_MODE=noinit   read everything, answer nothing (not even initialize)
//	FAKEACP_MODE=garbage-init
//	                      answer initialize with the raw line `this is not json {`
//	                      and nothing else
//	FAKEACP_LOAD=1        advertise loadSession and accept session/load of any
//	                      id (with an absolute cwd); the session then exists
//	FAKEACP_MCP_HTTP=1    advertise mcpCapabilities.http
//	FAKEACP_RECORD=FILE   append one JSON line per request or notification
//	                      received, {"method":M,"params":<raw params>}, after a
//	                      first line {"method":"$env","params":{"names":[...],
//	                      "env":{NAME:VALUE}}} with the whole environment
//
// Bounds: a JSON-RPC line read from stdin is at most 16 MiB (a longer one
// ends the connection as if stdin closed), at most 4096 sessions, !bigtool
// at most 64 MiB.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

const (
	maxLine     = 16 << 20 // longest JSON-RPC line read from stdin
	maxSessions = 4096
	maxBigTool  = 64 << 20
	// exitDelay separates !exit's answer from the end of stdout: the SDK's
	// client side may report a reply followed at once by EOF as "peer
	// disconnected before response".
	exitDelay = 100 * time.Millisecond
)

type config struct {
	version int
	mode    string
	load    bool
	mcpHTTP bool
	record  string
}

func loadConfig() config {
	c := config{
		version: acp.ProtocolVersionNumber,
		mode:    os.Getenv("FAKEACP_MODE"),
		load:    os.Getenv("FAKEACP_LOAD") == "1",
		mcpHTTP: os.Getenv("FAKEACP_MCP_HTTP") == "1",
		record:  os.Getenv("FAKEACP_RECORD"),
	}
	if v, err := strconv.Atoi(os.Getenv("FAKEACP_VERSION")); err == nil {
		c.version = v
	}
	return c
}

func main() {
	os.Exit(run())
}

func run() int {
	cfg := loadConfig()
	rec, err := openRecorder(cfg.record)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeacp:", err)
		return 1
	}
	rec.env()
	out := newOutput(os.Stdout)
	switch cfg.mode {
	case "":
		serve(cfg, rec, out)
	case "noinit":
		_ = readLines(os.Stdin, func(line []byte) { rec.line(line) })
	case "garbage-init":
		_ = readLines(os.Stdin, func(line []byte) {
			if rec.line(line).Method == acp.AgentMethodInitialize {
				out.raw("this is not json {")
			}
		})
	default:
		fmt.Fprintf(os.Stderr, "fakeacp: unknown FAKEACP_MODE %q\n", cfg.mode)
		return 2
	}
	return 0
}

// serve runs the SDK's agent side until stdin closes. Stdin reaches the SDK
// through a pipe so every message is recorded raw first.
func serve(cfg config, rec *recorder, out *output) {
	pr, pw := io.Pipe()
	ag := &agent{cfg: cfg, out: out, sessions: map[acp.SessionId]bool{}, servers: map[acp.SessionId][]acp.McpServer{}}
	var impl acp.Agent = ag
	if cfg.load {
		impl = &loaderAgent{ag}
	}
	ag.conn = acp.NewAgentSideConnection(impl, out, pr)
	go func() {
		err := readLines(os.Stdin, func(line []byte) {
			rec.line(line)
			frame := make([]byte, len(line)+1)
			copy(frame, line)
			frame[len(line)] = '\n'
			_, _ = pw.Write(frame)
		})
		_ = pw.CloseWithError(err)
	}()
	<-ag.conn.Done()
}

// readLines calls each for every non-empty line of r (without its newline;
// the slice is only valid during the call). It returns r's error, or one
// for a line longer than maxLine.
func readLines(r io.Reader, each func(line []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		if line := sc.Bytes(); len(bytes.TrimSpace(line)) > 0 {
			each(line)
		}
	}
	return sc.Err()
}

// output is the process's stdout, shared by the SDK and raw lines: one
// mutex per Write keeps a raw line from landing inside an SDK frame (the
// SDK writes each frame with a single Write).
type output struct {
	mu sync.Mutex
	w  io.Writer
	// exitAfterReply is the code to exit with once a prompt's answer has
	// been written (!exit), or -1.
	exitAfterReply atomic.Int64
}

func newOutput(w io.Writer) *output {
	o := &output{w: w}
	o.exitAfterReply.Store(-1)
	return o
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	if code := o.exitAfterReply.Load(); code >= 0 && isPromptReply(p) {
		time.AfterFunc(exitDelay, func() { o.exit(int(code)) })
	}
	return n, err
}

// raw writes line and a newline, bypassing the SDK.
func (o *output) raw(line string) {
	_, _ = o.Write([]byte(line + "\n"))
}

// exit ends the process at once, between two frames.
func (o *output) exit(code int) {
	o.mu.Lock()
	os.Exit(code)
}

func isPromptReply(frame []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			StopReason string `json:"stopReason"`
		} `json:"result"`
	}
	return json.Unmarshal(frame, &m) == nil && m.ID != nil && m.Result.StopReason != ""
}

// inbound is the part of a JSON-RPC message the recorder needs.
type inbound struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// recorder appends JSON lines to FAKEACP_RECORD; a nil recorder records
// nothing.
type recorder struct {
	mu sync.Mutex
	f  *os.File
}

func openRecorder(path string) (*recorder, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &recorder{f: f}, nil
}

// line parses a received line and records it when it is a request or a
// notification (responses and unparsable lines are not recorded).
func (r *recorder) line(line []byte) inbound {
	var m inbound
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return inbound{}
	}
	params := m.Params
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	r.write(m.Method, params)
	return m
}

// env records the names and values of the whole environment.
func (r *recorder) env() {
	names := []string{}
	vals := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		names = append(names, k)
		vals[k] = v
	}
	sort.Strings(names)
	r.write("$env", map[string]any{"names": names, "env": vals})
}

func (r *recorder) write(method string, params any) {
	if r == nil {
		return
	}
	b, err := json.Marshal(map[string]any{"method": method, "params": params})
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.f.Write(append(b, '\n'))
}
