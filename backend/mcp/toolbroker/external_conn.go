package toolbroker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/clawboo/desktop/backend/proc"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// extServer is one external server and its live connection.
type extServer struct {
	b                    *Broker
	cfg                  ServerConfig
	createdAt, updatedAt int64

	mu     sync.Mutex
	state  string
	err    string
	client *client.Client
	cmd    *exec.Cmd // a stdio server's process
	stderr *tailBuffer
	tools  []string
	// gen counts connections: a connect that finishes after its server was
	// disconnected (or reconnected) throws its result away.
	gen  int
	gone bool // removed, or the broker closed
}

// addConn registers a server's slot (nil when the broker is closed or the
// name is taken).
func (b *Broker) addConn(s savedServer) *extServer {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.servers[s.cfg.Name] != nil {
		return nil
	}
	es := &extServer{b: b, cfg: s.cfg, createdAt: s.createdAt, updatedAt: s.updatedAt, state: ServerConnecting}
	b.servers[s.cfg.Name] = es
	return es
}

func (es *extServer) status() ServerStatus {
	es.mu.Lock()
	defer es.mu.Unlock()
	return ServerStatus{
		ServerConfig: es.cfg, CommandLine: es.cfg.CommandLine(), Status: es.state, Error: es.err,
		Tools: append([]string{}, es.tools...), CreatedAt: es.createdAt, UpdatedAt: es.updatedAt,
	}
}

// connect starts the server, initialises a session, lists its tools and
// offers them. Failure is recorded on the server, never returned.
func (b *Broker) connect(es *extServer) {
	es.mu.Lock()
	if es.gone {
		es.mu.Unlock()
		return
	}
	es.gen++
	gen := es.gen
	es.state, es.err, es.tools = ServerConnecting, "", nil
	cfg := es.cfg
	es.mu.Unlock()

	ctx, cancel := context.WithTimeout(b.life, connectTimeout)
	defer cancel()
	cl, cmd, tail, err := b.dial(ctx, cfg)
	var remote []mcp.Tool
	if err == nil {
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "clawboo-tools", Version: b.version}
		if _, err = cl.Initialize(ctx, init); err == nil {
			var res *mcp.ListToolsResult
			if res, err = cl.ListTools(ctx, mcp.ListToolsRequest{}); err == nil {
				remote = res.Tools
			}
		}
	}

	es.mu.Lock()
	if es.gone || es.gen != gen {
		es.mu.Unlock()
		closeConn(cl, cmd)
		return
	}
	if err != nil {
		es.state, es.err = ServerFailed, describeFailure(cfg.Name, err, tail)
		es.mu.Unlock()
		b.log.Warn("external MCP server failed to start", "server", cfg.Name, "err", es.err)
		closeConn(cl, cmd)
		return
	}
	es.client, es.cmd, es.stderr, es.state = cl, cmd, tail, ServerReady
	added, skipped := b.register(es, remote)
	es.tools = serverToolNames(added)
	if skipped > 0 {
		es.err = fmt.Sprintf("%d tools not offered (invalid names, or over %d)", skipped, maxServerTools)
	}
	es.mu.Unlock()
	b.mu.RLock()
	srv := b.srv
	b.mu.RUnlock()
	if srv != nil {
		srv.AddTools(added...)
	}
}

func serverToolNames(ts []server.ServerTool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Tool.Name
	}
	return out
}

// register puts a server's tools in the registry as <server>__<tool>.
// es.mu is held (lock order: a server, then the broker).
func (b *Broker) register(es *extServer, remote []mcp.Tool) ([]server.ServerTool, int) {
	var out []server.ServerTool
	skipped := 0
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rt := range remote {
		if !remoteToolPattern().MatchString(rt.Name) || len(out) >= maxServerTools {
			skipped++
			continue
		}
		name := es.cfg.Name + "__" + rt.Name
		def := mcp.Tool{
			Name: name, Title: rt.Title, Description: cutBytes(strings.TrimSpace("["+es.cfg.Name+"] "+rt.Description), 2048),
			InputSchema: rt.InputSchema, Annotations: rt.Annotations,
		}
		if def.InputSchema.Type == "" {
			def.InputSchema.Type = "object"
		}
		b.tools[name] = b.proxyTool(es, def, rt.Name)
		out = append(out, server.ServerTool{Tool: def, Handler: b.handler(name)})
	}
	return out, skipped
}

// withdraw takes a server's tools out of the registry and off the server.
func (b *Broker) withdraw(serverNamePattern string) {
	prefix := serverNamePattern + "__"
	b.mu.Lock()
	var gone []string
	for name := range b.tools {
		if strings.HasPrefix(name, prefix) {
			delete(b.tools, name)
			gone = append(gone, name)
		}
	}
	srv := b.srv
	b.mu.Unlock()
	if srv != nil && len(gone) > 0 {
		srv.DeleteTools(gone...)
	}
}

func (b *Broker) proxyTool(es *extServer, def mcp.Tool, remoteName string) *brokerTool {
	schema := def.InputSchema
	return &brokerTool{
		def: def, risk: es.cfg.Risk, source: es.cfg.Name,
		available: func(context.Context) (bool, string) { return es.ready() },
		prepare: func(raw json.RawMessage) (*preparedCall, error) {
			args, err := checkExternalArgs(schema, raw)
			if err != nil {
				return nil, err
			}
			return &preparedCall{
				title: "Use " + def.Name + " (external server " + es.cfg.Name + ")",
				run: func(ctx context.Context, _ toolcall.Caller) (*mcp.CallToolResult, error) {
					return es.call(ctx, remoteName, args)
				},
			}, nil
		},
	}
}

func (es *extServer) ready() (bool, string) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.state == ServerReady && es.client != nil {
		return true, ""
	}
	if es.err != "" {
		return false, "server " + es.cfg.Name + " is " + es.state + ": " + es.err
	}
	return false, "server " + es.cfg.Name + " is " + es.state
}

// call proxies one call, bounded by the server's timeout. A server whose
// process or stream is gone is marked failed.
func (es *extServer) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	es.mu.Lock()
	cl, gen, tail := es.client, es.gen, es.stderr
	es.mu.Unlock()
	if cl == nil {
		return nil, fmt.Errorf("server %s is not connected", es.cfg.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, es.cfg.callTimeout())
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := cl.CallTool(ctx, req)
	if err != nil {
		if errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, syscall.EPIPE) {
			es.failed(gen, describeFailure(es.cfg.Name, errors.New("the server stopped"), tail))
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, fmt.Errorf("server %s did not answer within %s", es.cfg.Name, es.cfg.callTimeout())
		}
		return nil, fmt.Errorf("server %s: %w", es.cfg.Name, err)
	}
	// A fresh result: the server's _meta (a forged "denied", say) stays behind.
	return &mcp.CallToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}, nil
}

// failed marks a live connection dead (its tools become unavailable) and
// releases it.
func (es *extServer) failed(gen int, why string) {
	es.mu.Lock()
	if es.gen != gen || es.client == nil {
		es.mu.Unlock()
		return
	}
	cl, cmd := es.client, es.cmd
	es.client, es.cmd, es.state, es.err = nil, nil, ServerFailed, why
	es.mu.Unlock()
	es.b.log.Warn("external MCP server stopped", "server", es.cfg.Name, "err", why)
	go closeConn(cl, cmd)
}

// disconnect ends the live connection (if any); a connect under way
// discards its result. final forgets the server for good (removed, or the
// broker closing): no connect starts after it.
func (es *extServer) disconnect(final bool) {
	es.mu.Lock()
	es.gen++
	cl, cmd := es.client, es.cmd
	es.client, es.cmd, es.tools = nil, nil, nil
	if final {
		es.gone = true
	}
	es.mu.Unlock()
	closeConn(cl, cmd)
}

func closeConn(cl *client.Client, cmd *exec.Cmd) {
	if cl != nil {
		_ = cl.Close()
	}
	if cmd != nil {
		proc.KillGroup(cmd)
	}
}

// dial opens the transport (a stdio server's process starts here).
func (b *Broker) dial(ctx context.Context, cfg ServerConfig) (*client.Client, *exec.Cmd, *tailBuffer, error) {
	tail := &tailBuffer{max: 4096}
	switch cfg.Transport {
	case TransportStdio:
		var started *exec.Cmd
		env := b.childEnv(ctx, cfg)
		cl, err := client.NewStdioMCPClientWithOptions(cfg.Command, env, cfg.Args,
			transport.WithCommandLogger(b.log),
			transport.WithCommandFunc(func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
				// Not bound to a context: the process lives as long as the
				// connection, and closing the client stops it.
				cmd := exec.Command(command, args...)
				cmd.Env = env
				cmd.Stderr = tail
				cmd.WaitDelay = 2 * time.Second
				proc.InGroup(cmd)
				started = cmd
				return cmd, nil
			}))
		if err != nil {
			if started != nil && started.Process != nil {
				proc.KillGroup(started)
			}
			return nil, nil, tail, err
		}
		return cl, started, tail, nil
	default:
		headers, err := b.resolveHeaders(ctx, cfg.Headers)
		if err != nil {
			return nil, nil, tail, err
		}
		cl, err := client.NewStreamableHttpClient(cfg.URL, transport.WithHTTPHeaders(headers),
			transport.WithHTTPTimeout(cfg.callTimeout()), transport.WithHTTPLogger(b.log))
		if err != nil {
			return nil, nil, tail, err
		}
		if err := cl.Start(b.life); err != nil {
			_ = cl.Close()
			return nil, nil, tail, err
		}
		return cl, nil, tail, nil
	}
}

// resolveHeaders replaces each ${NAME} with its secret.
func (b *Broker) resolveHeaders(ctx context.Context, in map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	var missing []string
	for k, v := range in {
		out[k] = secretRefPattern.ReplaceAllStringFunc(v, func(ref string) string {
			name := secretRefPattern.FindStringSubmatch(ref)[1]
			if forbiddenEnvName(name) {
				missing = append(missing, name)
				return ""
			}
			s, ok := b.secretSource().Get(ctx, name)
			if !ok {
				missing = append(missing, name)
			}
			return s
		})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("header values need %s, which is not configured", strings.Join(missing, ", "))
	}
	return out, nil
}
