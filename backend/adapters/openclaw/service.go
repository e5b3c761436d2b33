package openclaw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/mcp"
)

// The service: the OpenClaw runtime as the backend runs it. One Gateway
// connection is shared by the adapter, the exec approvals relay and the
// activity watcher; the service adds what the OpenClaw card and settings
// form need. It reaches the settings table, the vault, the approvals
// queue and the MCP hub only through what ServiceOptions hands it, so the
// adapter imports none of them.
//
// Settings precedence: the URL from CLAWBOO_OPENCLAW_URL, else the
// settings table; the token as TokenStore resolves it (the environment,
// else the vault slot CLAWBOO_OPENCLAW_TOKEN, else OpenClaw's own .env).
// The token never goes into the settings table and leaves the service
// only masked.
const (
	URLEnv     = "CLAWBOO_OPENCLAW_URL"
	TokenSlot  = "CLAWBOO_OPENCLAW_TOKEN"
	URLSetting = "openclaw.gateway.url"
)

// ErrSettings marks a settings value the service refused (a bad URL or
// token); the message after it is for the person.
var ErrSettings = errors.New("invalid OpenClaw settings")

// SettingStore is the part of the settings table the service uses.
type SettingStore interface {
	GetSetting(ctx context.Context, key string) (string, error)
	PutSetting(ctx context.Context, key, value string, now int64) error
	DeleteSetting(ctx context.Context, key string) error
}

// TokenStore keeps the Gateway token. Resolve's source is "env", "vault",
// "openclaw" or "" (none); Set refuses a bad token with an error wrapping
// ErrSettings.
type TokenStore interface {
	Resolve(ctx context.Context) (token, source string)
	Set(ctx context.Context, token string) error
	Delete(ctx context.Context) error
}

// ServiceOptions wires the service. Funcs are read when used, so the
// composition root may pass ones whose targets are built later.
type ServiceOptions struct {
	IdentityDir string // the device key's folder (<home>/runtimes/openclaw)
	Version     string
	Log         *slog.Logger
	Getenv      func(string) string // default os.Getenv
	Settings    SettingStore
	Tokens      TokenStore // nil: no vault (no token, and saving one fails)
	// Ask puts an exec approval to a person; nil refuses every one.
	Ask func(ctx context.Context, q Question, ttl time.Duration) (bool, error)
	// Hub is the MCP hub whose servers RegisterMCP writes (nil: not running).
	Hub func() *mcp.Hub
	// BaseURL is the address the server listens on ("" when unknown); it
	// wins over the caller's guess in RegisterMCP.
	BaseURL func() string
	// Changed is told whenever the runtime's state may have changed (the
	// connection, saved settings), for the runtimes list.
	Changed func()
}

// Service owns the Gateway client, the adapter, the relay and the watcher.
type Service struct {
	o       ServiceOptions
	client  *Client
	adapter *Adapter
	relay   *Relay
	watcher *Watcher
	// changed wakes the card's status stream: connection states, OpenClaw
	// runs starting and ending, approvals asked and settled, MCP
	// registration.
	changed *bus.Broker[struct{}]
	sinks   []func(Activity) // set before Start, then only read

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	stops  []func()
}

// NewService builds the service; nothing connects until Start.
func NewService(o ServiceOptions) *Service {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Changed == nil {
		o.Changed = func() {}
	}
	s := &Service{o: o, changed: bus.New[struct{}](0)}
	// The device key is made on the first connection attempt, not here: an
	// install that never configures a Gateway never makes one (and start-up
	// does not pay for it).
	loadID := func() (*Identity, error) {
		id, err := LoadIdentity(o.IdentityDir)
		if err != nil {
			o.Log.Error("no OpenClaw device identity; the Gateway connection will fail", "err", err)
		}
		return id, err
	}
	s.client = NewClient(ClientOptions{Settings: s.connection, LoadIdentity: loadID, Log: o.Log, Version: o.Version})
	s.adapter = New(Options{Client: s.client, Log: o.Log})
	s.relay = &Relay{Client: s.client, Ask: s.Ask, RunFor: s.adapter.RunFor, Log: o.Log}
	s.watcher = &Watcher{Client: s.client, Ours: s.adapter.LiveSessions, OnActivity: s.publishActivity}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// Adapter is the openclaw runtime for the registry.
func (s *Service) Adapter() *Adapter { return s.adapter }

// Start relays approvals, watches activity and connects in the background
// (once a URL is set).
func (s *Service) Start() {
	s.stops = append(s.stops, s.relay.Start(s.ctx), s.watcher.Start(s.ctx))
	states := s.client.SubscribeState()
	s.client.Start()
	s.follow(states.C(), states.Close, func() { s.o.Changed(); s.changed.Publish(struct{}{}) })
}

// WakeOn wakes the card for every value of sub that ours accepts (the
// supervisor's updates of OpenClaw runs), until the service closes; it
// closes sub then. A sub that ends first is simply no longer followed.
// The broker offers it only the values ours accepts, so other runtimes'
// runs do not wake this goroutine.
func WakeOn[T any](s *Service, sub *bus.Subscription[T], ours func(T) bool) {
	sub.Only(ours)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer sub.Close()
		for {
			select {
			case <-s.ctx.Done():
				return
			case v, ok := <-sub.C():
				if !ok {
					return
				}
				if ours(v) {
					s.changed.Publish(struct{}{})
				}
			}
		}
	}()
}

// follow calls wake for every value on c until the service closes or c
// does, then calls done.
func (s *Service) follow(c <-chan State, done func(), wake func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer done()
		for {
			select {
			case <-s.ctx.Done():
				return
			case _, ok := <-c:
				if !ok {
					return
				}
				wake()
			}
		}
	}()
}

// Close stops the connection, relay, watcher and followers; safe more
// than once. The backend calls it after the supervisor has aborted live
// runs.
func (s *Service) Close() {
	s.once.Do(func() {
		s.cancel()
		s.client.Close()
		for _, stop := range s.stops {
			stop()
		}
		s.wg.Wait()
		s.changed.Close()
	})
}

// connection is read before every connection attempt.
func (s *Service) connection(ctx context.Context) Settings {
	u, _ := s.url(ctx)
	tok, _ := s.token(ctx)
	return Settings{URL: u, Token: tok}
}

func (s *Service) url(ctx context.Context) (string, string) {
	if u := strings.TrimSpace(s.o.Getenv(URLEnv)); u != "" {
		return u, "env"
	}
	if s.o.Settings != nil {
		if u, err := s.o.Settings.GetSetting(ctx, URLSetting); err == nil && u != "" {
			return u, "settings"
		}
	}
	return "", ""
}

func (s *Service) token(ctx context.Context) (string, string) {
	if s.o.Tokens == nil {
		return "", ""
	}
	return s.o.Tokens.Resolve(ctx)
}

// FormSettings is the connection as the settings form shows it.
type FormSettings struct {
	URL string `json:"url"`
	// URLSource is "env" (CLAWBOO_OPENCLAW_URL, which wins), "settings"
	// or "" (none).
	URLSource string `json:"urlSource"`
	TokenSet  bool   `json:"tokenSet"`
	// TokenMasked is "••••" and the token's last 4 characters.
	TokenMasked string `json:"tokenMasked,omitempty"`
	// TokenSource is "env", "vault", "openclaw" (OpenClaw's own .env) or "".
	TokenSource string `json:"tokenSource"`
}

// SettingsUpdate changes the connection; a nil field is left as it is,
// "" clears it.
type SettingsUpdate struct {
	URL   *string `json:"url"`
	Token *string `json:"token"`
}

// Settings is the connection for the form; the token only masked.
func (s *Service) Settings(ctx context.Context) FormSettings {
	u, us := s.url(ctx)
	tok, ts := s.token(ctx)
	out := FormSettings{URL: u, URLSource: us, TokenSet: tok != "", TokenSource: ts}
	if tok != "" {
		out.TokenMasked = mcp.MaskToken(tok)
	}
	return out
}

// SaveSettings puts the URL into the settings table and the token into
// the vault; then the client reconnects.
func (s *Service) SaveSettings(ctx context.Context, u SettingsUpdate) (FormSettings, error) {
	if u.URL != nil {
		if s.o.Settings == nil {
			return FormSettings{}, errors.New("no settings table")
		}
		if *u.URL == "" {
			if err := s.o.Settings.DeleteSetting(ctx, URLSetting); err != nil {
				return FormSettings{}, err
			}
		} else {
			p, err := url.Parse(*u.URL)
			if err != nil || (p.Scheme != "ws" && p.Scheme != "wss") || p.Host == "" || p.User != nil {
				return FormSettings{}, fmt.Errorf("%w: the Gateway URL must be ws:// or wss://host:port (e.g. ws://127.0.0.1:18789)", ErrSettings)
			}
			if err := s.o.Settings.PutSetting(ctx, URLSetting, *u.URL, time.Now().UnixMilli()); err != nil {
				return FormSettings{}, err
			}
		}
	}
	if u.Token != nil {
		var err error
		switch {
		case s.o.Tokens == nil:
			err = errors.New("no vault")
		case *u.Token == "":
			err = s.o.Tokens.Delete(ctx)
		default:
			err = s.o.Tokens.Set(ctx, *u.Token)
		}
		if errors.Is(err, ErrSettings) {
			return FormSettings{}, err
		}
		if err != nil {
			return FormSettings{}, fmt.Errorf("store the Gateway token: %w", err)
		}
	}
	s.client.Reconfigure()
	s.o.Changed()
	return s.Settings(ctx), nil
}
