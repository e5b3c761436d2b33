package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// Desktop notifications go over the freedesktop Notifications D-Bus API
// (org.freedesktop.Notifications.Notify / CloseNotification) on a private
// connection to the session bus, so closing it never disturbs the shared
// connection the keychain and the tray use.
const (
	notifyDest  = "org.freedesktop.Notifications"
	notifyPath  = "/org/freedesktop/Notifications"
	notifyIface = "org.freedesktop.Notifications"
	// notifyTimeout bounds one call to the notification server.
	notifyTimeout = 2 * time.Second
	// notifyBacklog bounds the notifications waiting to be sent; beyond it
	// they are dropped (a hung server must not hold the app).
	notifyBacklog = 64
)

// errNoSessionBus says there is no session bus to talk to. We never let
// godbus autolaunch one: that leaves a dbus-daemon (and whatever it
// activates) running after we exit.
var errNoSessionBus = errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset and no $XDG_RUNTIME_DIR/bus)")

// sessionBusAddress is the session bus to use, or errNoSessionBus.
func sessionBusAddress(getenv func(string) string) (string, error) {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		p := filepath.Join(d, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", errNoSessionBus
}

// dbusNotifier sends notifications from its own goroutine, in order.
type dbusNotifier struct {
	conn *dbus.Conn
	log  *slog.Logger
	ops  chan notifyOp
	done chan struct{}
	once sync.Once

	mu     sync.Mutex
	closed bool              // ops is closed: nothing more is sent
	ids    map[string]uint32 // key → the server's notification id
}

type notifyOp struct {
	key, summary, body string
	close              bool
}

// newDBusNotifier connects to the session bus. It fails when there is no
// bus; a bus without a notification server is found out on the first
// notification (logged once, then every later one is still tried: a
// server may start later).
func newDBusNotifier(getenv func(string) string, log *slog.Logger) (*dbusNotifier, error) {
	addr, err := sessionBusAddress(getenv)
	if err != nil {
		return nil, err
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, err
	}
	n := &dbusNotifier{conn: conn, log: log, ops: make(chan notifyOp, notifyBacklog), done: make(chan struct{}), ids: map[string]uint32{}}
	go n.loop()
	return n, nil
}

// Notify shows (or replaces) the notification named key.
func (n *dbusNotifier) Notify(key, summary, body string) {
	n.enqueue(notifyOp{key: key, summary: summary, body: body})
}

// Close withdraws the notification named key, if it was shown.
func (n *dbusNotifier) Close(key string) { n.enqueue(notifyOp{key: key, close: true}) }

func (n *dbusNotifier) enqueue(op notifyOp) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	select {
	case n.ops <- op:
	default:
		n.log.Warn("desktop notification dropped: the notification server is not keeping up", "key", op.key)
	}
}

// shutdown stops sending and closes the connection.
func (n *dbusNotifier) shutdown() {
	n.once.Do(func() {
		n.mu.Lock()
		n.closed = true
		close(n.ops)
		n.mu.Unlock()
		<-n.done
		_ = n.conn.Close()
	})
}

func (n *dbusNotifier) loop() {
	defer close(n.done)
	warned := false
	obj := n.conn.Object(notifyDest, notifyPath)
	for op := range n.ops {
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		var err error
		if op.close {
			n.mu.Lock()
			id, ok := n.ids[op.key]
			delete(n.ids, op.key)
			n.mu.Unlock()
			if ok {
				err = obj.CallWithContext(ctx, notifyIface+".CloseNotification", 0, id).Err
			}
		} else {
			n.mu.Lock()
			replaces := n.ids[op.key]
			n.mu.Unlock()
			var id uint32
			err = obj.CallWithContext(ctx, notifyIface+".Notify", 0,
				"Clawboo", replaces, "", op.summary, escapeNotifyMarkup(op.body),
				[]string{}, map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant("clawboo")}, int32(-1)).Store(&id)
			if err == nil {
				n.mu.Lock()
				n.ids[op.key] = id
				n.mu.Unlock()
			}
		}
		cancel()
		if err != nil && !warned {
			warned = true
			n.log.Info("desktop notifications are not shown: no notification server answered", "err", err)
		}
	}
}

// escapeNotifyMarkup makes text safe for servers that read the body as
// their small markup language (<b>, <i>, <a href>): agents' text is shown
// as written, never interpreted.
func escapeNotifyMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
