package openclaw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/redact"
)

// Settings say where the Gateway is. Token is a secret: it travels only in
// the connect request and never reaches a log, an error or State.
type Settings struct {
	URL   string
	Token string
}

// ClientOptions configure a Client.
type ClientOptions struct {
	// Settings is read before every connection attempt.
	Settings func(ctx context.Context) Settings
	// Identity signs the handshake. Without it, LoadIdentity is called on
	// the first connection attempt (so an install that never configures a
	// Gateway never makes a device key).
	Identity     *Identity
	LoadIdentity func() (*Identity, error)
	Log          *slog.Logger
	// RequestTimeout bounds one request, including waiting for a
	// connection (default 30 s).
	RequestTimeout time.Duration
	// HandshakeTimeout bounds dial + challenge + hello (default 10 s).
	HandshakeTimeout time.Duration
	// MinBackoff and MaxBackoff bound the reconnect delay (250 ms, 30 s).
	MinBackoff, MaxBackoff time.Duration
	// PingInterval checks a quiet connection is alive (default 30 s).
	PingInterval time.Duration
	Version      string
}

// Connection states, as State.Status.
const (
	StatusUnconfigured = "unconfigured" // no URL
	StatusConnecting   = "connecting"
	StatusStarting     = "starting" // the Gateway answered UNAVAILABLE / 1013
	StatusConnected    = "connected"
	StatusError        = "error" // the last attempt failed; retrying with backoff
	StatusClosed       = "closed"
)

// State is the connection as the UI shows it. It holds no secret.
type State struct {
	Status        string `json:"status"`
	URL           string `json:"url,omitempty"`
	Error         string `json:"error,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	Protocol      int    `json:"protocol,omitempty"`
	DeviceID      string `json:"deviceId,omitempty"`
	ConnectedAt   int64  `json:"connectedAt,omitempty"`
	// Attempts counts failed attempts since the last good connection.
	Attempts int `json:"attempts"`
	// NextRetryAt is when the next attempt starts (Unix ms; 0 = none).
	NextRetryAt int64 `json:"nextRetryAt,omitempty"`
}

// Errors a caller can act on.
var (
	ErrNotConfigured = errors.New("openclaw: no Gateway URL is set")
	ErrClosed        = errors.New("openclaw: the Gateway client is closed")
	ErrDisconnected  = errors.New("openclaw: the Gateway connection was lost")
)

// maxFrame bounds one incoming frame (the Gateway's own maxPayload is
// 25 MiB).
const maxFrame = 32 << 20

// Client is one persistent connection to a Gateway: it connects in the
// background, retries while the Gateway starts, reconnects with backoff
// and fans events out to subscribers.
type Client struct {
	o      ClientOptions
	events *bus.Broker[Event]
	states *bus.Broker[State]

	mu      sync.Mutex
	conn    *wsConn
	ready   chan struct{} // closed while conn != nil
	state   State
	keys    map[string]int // session keys subscribed for session.message
	granted granted        // what the current connection's hello-ok allowed
	started bool

	wake   chan struct{}
	closed chan struct{}
	done   chan struct{}
	once   sync.Once

	idMu sync.Mutex // guards o.Identity once loaded lazily
}

// NewClient makes a client; Start connects it.
func NewClient(o ClientOptions) *Client {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 10 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 250 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.Settings == nil {
		o.Settings = func(context.Context) Settings { return Settings{} }
	}
	c := &Client{
		o: o, events: bus.New[Event](2 * time.Second), states: bus.New[State](time.Second),
		ready: make(chan struct{}), keys: map[string]int{}, wake: make(chan struct{}, 1),
		closed: make(chan struct{}), done: make(chan struct{}),
	}
	c.state = State{Status: StatusConnecting}
	if o.Identity != nil {
		c.state.DeviceID = o.Identity.ID
	}
	return c
}

// identity is the device identity, loaded on first use when the options
// gave a loader rather than a key; a failed load is retried next time.
func (c *Client) identity() (*Identity, error) {
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.o.Identity != nil {
		return c.o.Identity, nil
	}
	if c.o.LoadIdentity == nil {
		return nil, errors.New("openclaw: no device identity")
	}
	id, err := c.o.LoadIdentity()
	if err != nil {
		return nil, err
	}
	c.o.Identity = id
	c.setState(func(s *State) { s.DeviceID = id.ID })
	return id, nil
}

// Start begins connecting in the background (once).
func (c *Client) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return
	}
	c.started = true
	go c.loop()
}

// Close drops the connection and stops reconnecting.
func (c *Client) Close() {
	c.once.Do(func() {
		close(c.closed)
		c.mu.Lock()
		conn, started := c.conn, c.started
		c.mu.Unlock()
		if conn != nil {
			conn.close("client closed")
		}
		if started {
			<-c.done
		}
		c.setState(func(s *State) { *s = State{Status: StatusClosed, DeviceID: s.DeviceID} })
		c.events.Close()
		c.states.Close()
	})
}

// Reconfigure drops the current connection (if any) and reconnects at
// once with freshly read settings.
func (c *Client) Reconfigure() {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		conn.close("settings changed")
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// State is the connection's current state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Subscribe receives every Gateway event from now on. A subscriber that
// falls more than two seconds behind is evicted (its channel closes with
// Evicted() true) and must treat the stream as broken.
func (c *Client) Subscribe(buf int) *bus.Subscription[Event] { return c.events.Subscribe(buf) }

// SubscribeState wakes on every state change (lossy; read State()).
func (c *Client) SubscribeState() *bus.Subscription[State] { return c.states.Subscribe(1) }

// WatchSession asks for the session's session.message events, now and
// after every reconnect, until the returned func is called.
func (c *Client) WatchSession(ctx context.Context, key string) (func(), error) {
	c.mu.Lock()
	c.keys[key]++
	c.mu.Unlock()
	stop := func() {
		c.mu.Lock()
		if c.keys[key]--; c.keys[key] <= 0 {
			delete(c.keys, key)
		}
		c.mu.Unlock()
	}
	if err := c.Request(ctx, "sessions.messages.subscribe", map[string]any{"key": key}, nil); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// Request sends one request and decodes the response payload into out
// (nil: ignore it). It waits for a connection, bounded by ctx and the
// request timeout. A Gateway refusal is a *GatewayError.
func (c *Client) Request(ctx context.Context, method string, params, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.RequestTimeout)
	defer cancel()
	conn, err := c.waitConn(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	res, err := conn.call(ctx, method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if !res.OK {
		if res.Error == nil {
			return &GatewayError{Code: "UNKNOWN", Message: method + " failed"}
		}
		return res.Error
	}
	if out != nil && len(res.Payload) > 0 {
		if err := json.Unmarshal(res.Payload, out); err != nil {
			return fmt.Errorf("%s: decode response: %w", method, err)
		}
	}
	return nil
}

func (c *Client) waitConn(ctx context.Context) (*wsConn, error) {
	for {
		c.mu.Lock()
		conn, ready, st, started := c.conn, c.ready, c.state.Status, c.started
		c.mu.Unlock()
		if conn != nil {
			return conn, nil
		}
		select {
		case <-c.closed:
			return nil, ErrClosed
		default:
		}
		if st == StatusUnconfigured {
			return nil, ErrNotConfigured
		}
		if !started {
			c.Start()
		}
		select {
		case <-ready:
		case <-c.closed:
			return nil, ErrClosed
		case <-ctx.Done():
			c.mu.Lock()
			last := c.state
			c.mu.Unlock()
			if last.Error != "" {
				return nil, fmt.Errorf("not connected to the Gateway (%s): %w", last.Error, ctx.Err())
			}
			return nil, fmt.Errorf("not connected to the Gateway: %w", ctx.Err())
		}
	}
}

func (c *Client) setState(f func(*State)) {
	c.mu.Lock()
	f(&c.state)
	s := c.state
	c.mu.Unlock()
	c.states.Publish(s)
}

// loop connects, serves the connection until it drops, and retries.
func (c *Client) loop() {
	defer close(c.done)
	backoff := c.o.MinBackoff
	for {
		select {
		case <-c.closed:
			return
		default:
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-c.closed:
			case <-ctx.Done():
			}
			cancel()
		}()
		s := c.o.Settings(ctx)
		if strings.TrimSpace(s.URL) == "" {
			cancel()
			c.setState(func(st *State) {
				*st = State{Status: StatusUnconfigured, DeviceID: st.DeviceID}
			})
			if !c.sleep(-1) {
				return
			}
			continue
		}
		c.setState(func(st *State) { st.Status, st.URL, st.NextRetryAt = StatusConnecting, safeURL(s.URL), 0 })
		conn, h, err := c.dial(ctx, s)
		if err != nil {
			cancel()
			if !c.sleep(c.dialFailed(err, s.Token, &backoff)) {
				return
			}
			continue
		}
		backoff = c.o.MinBackoff
		keys := c.connected(conn, h, s.URL)
		c.o.Log.Info("connected to the OpenClaw Gateway", "url", safeURL(s.URL), "version", h.Server.Version)
		go c.resubscribe(conn, keys)
		c.events.PublishMust(Event{Name: EventConnected})
		go conn.keepAlive(c.o.PingInterval, c.closed)
		err = conn.readLoop(c.events)
		cancel()
		c.mu.Lock()
		c.conn = nil
		c.granted = granted{}
		c.ready = make(chan struct{})
		c.mu.Unlock()
		c.events.PublishMust(Event{Name: EventDisconnected})
		select {
		case <-c.closed:
			return
		default:
		}
		msg := c.scrub(err.Error(), s.Token)
		c.o.Log.Warn("lost the OpenClaw Gateway connection", "err", msg)
		c.setState(func(st *State) {
			st.Status, st.Error, st.ConnectedAt = StatusConnecting, msg, 0
		})
		if !c.sleep(c.o.MinBackoff) {
			return
		}
	}
}

// sleep waits d (forever when d < 0) or until Reconfigure; false when the
// client closed.
func (c *Client) sleep(d time.Duration) bool {
	var t <-chan time.Time
	if d >= 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		t = tm.C
	}
	select {
	case <-t:
	case <-c.wake:
	case <-c.closed:
		return false
	}
	return true
}

// resubscribe restores what a connection must be told again after a
// reconnect: session lifecycle events and each watched session.
func (c *Client) resubscribe(conn *wsConn, keys []string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.o.RequestTimeout)
	defer cancel()
	if res, err := conn.call(ctx, "sessions.subscribe", map[string]any{}); err != nil || !res.OK {
		c.o.Log.Debug("sessions.subscribe failed", "err", err)
	}
	for _, k := range keys {
		if _, err := conn.call(ctx, "sessions.messages.subscribe", map[string]any{"key": k}); err != nil {
			c.o.Log.Debug("sessions.messages.subscribe failed", "key", k, "err", err)
		}
	}
}

// scrub keeps the token (and anything that looks like a key) out of a
// message that will be shown or logged.
func (c *Client) scrub(msg, token string) string {
	if token != "" {
		msg = strings.ReplaceAll(msg, token, "[redacted]")
	}
	return redact.Secrets(msg)
}

// dialFailed records a failed connect in the state (the error scrubbed of
// the token) and answers how long to wait before the next try: soon, at
// the pace the Gateway asks, while it starts up; otherwise the backoff,
// which doubles up to its maximum. Both get a fifth of jitter.
func (c *Client) dialFailed(err error, token string, backoff *time.Duration) time.Duration {
	delay, status := *backoff, StatusError
	var ge *GatewayError
	if errors.As(err, &ge) && ge.Code == "UNAVAILABLE" || websocket.CloseStatus(err) == websocket.StatusTryAgainLater {
		status, delay = StatusStarting, c.o.MinBackoff
		if ge != nil && ge.RetryAfterMs > 0 {
			delay = time.Duration(ge.RetryAfterMs) * time.Millisecond
		}
	} else {
		*backoff = min(*backoff*2, c.o.MaxBackoff)
	}
	delay += time.Duration(rand.Int64N(int64(delay)/5 + 1)) // jitter
	msg := c.scrub(err.Error(), token)
	c.o.Log.Debug("gateway connect failed", "status", status, "err", msg, "retryIn", delay)
	c.setState(func(st *State) {
		st.Status, st.Error, st.ServerVersion, st.Protocol, st.ConnectedAt = status, msg, "", 0, 0
		st.Attempts++
		st.NextRetryAt = time.Now().Add(delay).UnixMilli()
	})
	return delay
}

// connected makes conn the client's connection, its state connected, and
// answers the session keys to subscribe to again.
func (c *Client) connected(conn *wsConn, h hello, url string) []string {
	c.mu.Lock()
	c.conn = conn
	c.granted = grantedBy(h)
	close(c.ready)
	keys := make([]string, 0, len(c.keys))
	for k := range c.keys {
		keys = append(keys, k)
	}
	c.state = State{
		Status: StatusConnected, URL: safeURL(url), ServerVersion: h.Server.Version, Protocol: h.Protocol,
		DeviceID: c.state.DeviceID, ConnectedAt: time.Now().UnixMilli(),
	}
	st := c.state
	c.mu.Unlock()
	c.states.Publish(st)
	return keys
}
