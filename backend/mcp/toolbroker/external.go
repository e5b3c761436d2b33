package toolbroker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/redact"
)

// External MCP servers: a person adds one (a command to run over stdio, or
// a Streamable HTTP URL); the broker connects to it, lists its tools and
// offers each as <server>__<tool>, behind the same pipeline as the
// built-in tools (risk medium unless the person says otherwise).
//
// What is stored holds no secret: a stdio server gets the *names* of the
// environment variables it may see (their values are looked up when it
// starts), an HTTP server's header values may say ${NAME}, and a literal
// value that looks like a key is refused. Provider keys and Clawboo's own
// secrets are never handed to an external server.

// Errors the API maps to statuses.
var (
	ErrInvalidServer = errors.New("invalid server")
	ErrServerExists  = errors.New("a server with that name exists")
	ErrNoServer      = errors.New("no such server")
)

// Transports of external servers.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Server states.
const (
	ServerConnecting = "connecting"
	ServerReady      = "ready"
	ServerFailed     = "failed"
)

const (
	defaultCallTimeout = 60 * time.Second
	maxCallTimeout     = 10 * time.Minute
	connectTimeout     = 30 * time.Second
	maxServerTools     = 256
)

// ServerConfig is an external MCP server as a person describes it.
type ServerConfig struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// stdio: the program, its arguments, and the names of the environment
	// variables (beyond the basic allowlist) it may see.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"`
	// http: the Streamable HTTP endpoint and headers (values may hold
	// ${NAME}, looked up when connecting).
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Risk of every tool of this server (default medium).
	Risk Risk `json:"risk,omitempty"`
	// TimeoutMS bounds one proxied call (default 60 s, at most 10 min).
	TimeoutMS int64 `json:"timeoutMs,omitempty"`
}

// ServerStatus is a server with its connection state.
type ServerStatus struct {
	ServerConfig
	// CommandLine is a stdio server's exact command, shell-quoted, as a
	// person should read it: a program that runs as them at every start.
	CommandLine string   `json:"commandLine,omitempty"`
	Status      string   `json:"status"`
	Error       string   `json:"error,omitempty"`
	Tools       []string `json:"tools"`
	CreatedAt   int64    `json:"createdAt"`
	UpdatedAt   int64    `json:"updatedAt"`
}

var (
	// Compiled on first use: counted repetitions compile to a state per
	// count, which cost start-up time as package-level vars.
	serverNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`) })
	envNamePattern    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`) })
	headerNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$") })
	secretRefPattern  = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	remoteToolPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`) })
)

// otherModelCredentials pay for models too but have no slot in config's
// provider table (runtime logins, SDKs' alternative names); with the
// table's key slots they are never handed to an external server.
var otherModelCredentials = []string{"GOOGLE_API_KEY", "DEEPSEEK_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"}

// forbiddenEnvName reports names an external server may never read.
func forbiddenEnvName(name string) bool {
	up := strings.ToUpper(name)
	return strings.HasPrefix(up, "CLAWBOO_") || slices.Contains(config.ProviderEnvVars(), up) ||
		slices.Contains(otherModelCredentials, up)
}

// looksLikeSecret reports a literal that the scrubber would hide.
func looksLikeSecret(s string) bool { return redact.Secrets(s) != s }

func invalidServer(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidServer, fmt.Sprintf(format, a...))
}

// Validate checks a configuration and fills in defaults.
func (c *ServerConfig) Validate() error {
	if !serverNamePattern().MatchString(c.Name) {
		return invalidServer("name must be 1-32 lowercase letters, digits or '-', starting with a letter")
	}
	if c.Risk == "" {
		c.Risk = RiskMedium
	}
	if !c.Risk.valid() {
		return invalidServer("risk must be low, medium or high")
	}
	if c.TimeoutMS != 0 && (c.TimeoutMS < 1000 || c.TimeoutMS > maxCallTimeout.Milliseconds()) {
		return invalidServer("timeoutMs must be between 1000 and %d", maxCallTimeout.Milliseconds())
	}
	switch c.Transport {
	case TransportStdio:
		return c.validateStdio()
	case TransportHTTP:
		return c.validateHTTP()
	default:
		return invalidServer(`transport must be "stdio" or "http"`)
	}
}

func (c *ServerConfig) validateStdio() error {
	if c.URL != "" || len(c.Headers) > 0 {
		return invalidServer("a stdio server takes command, args and env, not url or headers")
	}
	if c.Command == "" || len(c.Command) > 1024 || strings.ContainsFunc(c.Command, isControlRune) {
		return invalidServer("command is required (one program, no control characters)")
	}
	if len(c.Args) > 64 {
		return invalidServer("at most 64 args")
	}
	for _, a := range append([]string{c.Command}, c.Args...) {
		if len(a) > 2048 || strings.ContainsRune(a, 0) {
			return invalidServer("an argument is over 2048 bytes or holds a NUL")
		}
		if looksLikeSecret(a) {
			return invalidServer("an argument looks like a secret; put it in an environment variable and list its name in env")
		}
	}
	if len(c.Env) > 32 {
		return invalidServer("at most 32 env names")
	}
	for _, n := range c.Env {
		if !envNamePattern().MatchString(n) {
			return invalidServer("env holds variable names (letters, digits, '_'), not values: %q", cutBytes(redact.Secrets(n), 40))
		}
		if forbiddenEnvName(n) {
			return invalidServer("%s is never given to an external server", n)
		}
	}
	return nil
}

func (c *ServerConfig) validateHTTP() error {
	if c.Command != "" || len(c.Args) > 0 || len(c.Env) > 0 {
		return invalidServer("an http server takes url and headers, not command, args or env")
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalidServer("url must be an http or https URL")
	}
	if u.User != nil || looksLikeSecret(c.URL) {
		return invalidServer("the url carries credentials; put them in a header as ${NAME}")
	}
	if len(c.Headers) > 32 {
		return invalidServer("at most 32 headers")
	}
	for k, v := range c.Headers {
		if !headerNamePattern().MatchString(k) || len(v) > 4096 || strings.ContainsFunc(v, isControlRune) {
			return invalidServer("header %q is not a valid header", cutBytes(k, 40))
		}
		for _, m := range secretRefPattern.FindAllStringSubmatch(v, -1) {
			if forbiddenEnvName(m[1]) {
				return invalidServer("%s is never given to an external server", m[1])
			}
		}
		if looksLikeSecret(k+": "+secretRefPattern.ReplaceAllString(v, "")) || looksLikeSecret(secretRefPattern.ReplaceAllString(v, "")) {
			return invalidServer("header %s holds what looks like a secret; write ${NAME} and keep the value in the environment or the vault", k)
		}
	}
	return nil
}

func isControlRune(r rune) bool { return r < 0x20 || r == 0x7f }

func (c ServerConfig) callTimeout() time.Duration {
	if c.TimeoutMS <= 0 {
		return defaultCallTimeout
	}
	return time.Duration(c.TimeoutMS) * time.Millisecond
}

// saveServer inserts a new server row.
func (b *Broker) saveServer(ctx context.Context, c ServerConfig) (int64, error) {
	args, _ := json.Marshal(orEmpty(c.Args))
	env, _ := json.Marshal(orEmpty(c.Env))
	hdr := c.Headers
	if hdr == nil {
		hdr = map[string]string{}
	}
	headers, _ := json.Marshal(hdr)
	now := b.now().UnixMilli()
	res, err := b.st.Write().ExecContext(ctx, `INSERT INTO tool_servers (name, transport, command, args, env, url, headers,
		risk, timeout_ms, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		c.Name, c.Transport, c.Command, string(args), string(env), c.URL, string(headers), string(c.Risk), c.TimeoutMS, now, now)
	if err != nil {
		return 0, fmt.Errorf("save server %s: %w", c.Name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, ErrServerExists
	}
	return now, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type savedServer struct {
	cfg                  ServerConfig
	createdAt, updatedAt int64
}

func (b *Broker) loadServers(ctx context.Context) ([]savedServer, error) {
	rows, err := b.st.Read().QueryContext(ctx, `SELECT name, transport, command, args, env, url, headers, risk, timeout_ms,
		created_at, updated_at FROM tool_servers ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("load tool servers: %w", err)
	}
	defer rows.Close()
	var out []savedServer
	for rows.Next() {
		var s savedServer
		var args, env, headers string
		if err := rows.Scan(&s.cfg.Name, &s.cfg.Transport, &s.cfg.Command, &args, &env, &s.cfg.URL, &headers,
			&s.cfg.Risk, &s.cfg.TimeoutMS, &s.createdAt, &s.updatedAt); err != nil {
			return nil, fmt.Errorf("load tool servers: %w", err)
		}
		_ = json.Unmarshal([]byte(args), &s.cfg.Args)
		_ = json.Unmarshal([]byte(env), &s.cfg.Env)
		_ = json.Unmarshal([]byte(headers), &s.cfg.Headers)
		out = append(out, s)
	}
	return out, rows.Err()
}

// AddServer saves a server and connects to it, waiting for the outcome
// (at most 30 s): a server that fails to start is saved and reported
// (status failed, with why), not an error.
func (b *Broker) AddServer(ctx context.Context, c ServerConfig) (ServerStatus, error) {
	if err := c.Validate(); err != nil {
		return ServerStatus{}, err
	}
	if b.st == nil {
		return ServerStatus{}, errors.New("no database to keep servers in")
	}
	if b.isClosed() {
		return ServerStatus{}, errBrokerClosed
	}
	b.mu.RLock()
	_, exists := b.servers[c.Name]
	b.mu.RUnlock()
	if exists {
		return ServerStatus{}, ErrServerExists
	}
	at, err := b.saveServer(ctx, c)
	if err != nil {
		return ServerStatus{}, err
	}
	es := b.addConn(savedServer{cfg: c, createdAt: at, updatedAt: at})
	if es == nil {
		return ServerStatus{}, errBrokerClosed
	}
	b.conns.Add(1)
	func() {
		defer b.conns.Done()
		b.connect(es)
	}()
	return es.status(), nil
}

// RemoveServer disconnects a server, withdraws its tools and forgets it.
func (b *Broker) RemoveServer(ctx context.Context, name string) error {
	b.mu.Lock()
	es := b.servers[name]
	delete(b.servers, name)
	b.mu.Unlock()
	removed := es != nil
	if es != nil {
		es.disconnect(true)
		b.withdraw(name)
	}
	if b.st != nil {
		res, err := b.st.Write().ExecContext(ctx, `DELETE FROM tool_servers WHERE name = ?`, name)
		if err != nil {
			return fmt.Errorf("remove server %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			removed = true
		}
	}
	if !removed {
		return ErrNoServer
	}
	return nil
}

// Reconnect restarts a server's connection (after fixing its environment,
// say) and waits for the outcome.
func (b *Broker) Reconnect(name string) (ServerStatus, error) {
	b.mu.RLock()
	es := b.servers[name]
	b.mu.RUnlock()
	if es == nil {
		return ServerStatus{}, ErrNoServer
	}
	if b.isClosed() {
		return ServerStatus{}, errBrokerClosed
	}
	es.disconnect(false)
	b.withdraw(name)
	b.conns.Add(1)
	defer b.conns.Done()
	b.connect(es)
	return es.status(), nil
}

// Servers lists the external servers and their state, by name.
func (b *Broker) Servers() []ServerStatus {
	b.mu.RLock()
	out := make([]ServerStatus, 0, len(b.servers))
	for _, es := range b.servers {
		out = append(out, es.status())
	}
	b.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
