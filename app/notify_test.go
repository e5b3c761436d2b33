package app

import (
	"bufio"
	"errors"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// privateBus starts a real dbus-daemon for the test and returns its
// address.
func privateBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon is not installed (make test installs it with build/deps.sh)")
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// notifyServer is a stand-in notification server on the bus: it records
// calls as the freedesktop spec defines them.
type notifyServer struct {
	mu     sync.Mutex
	calls  []string
	next   uint32
	closed []uint32
}

func (s *notifyServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32,
) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := replaces
	if id == 0 {
		s.next++
		id = s.next
	}
	s.calls = append(s.calls, app+"|"+summary+"|"+body)
	return id, nil
}

func (s *notifyServer) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = append(s.closed, id)
	return nil
}

func TestNotificationsOverTheSessionBus(t *testing.T) {
	addr := privateBus(t)
	srvConn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer srvConn.Close()
	srv := &notifyServer{}
	if err := srvConn.Export(srv, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if reply, err := srvConn.RequestName(notifyDest, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the name: %v %v", reply, err)
	}
	env := map[string]string{"DBUS_SESSION_BUS_ADDRESS": addr}
	n, err := newDBusNotifier(func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	n.Notify("a", "Clawboo: approval needed", "Allow rm to run? <b>&</b>")
	n.Notify("b", "Clawboo: task finished", "Fix the parser")
	n.Close("a")
	n.Close("never-shown")
	n.shutdown()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	want := []string{"Clawboo|Clawboo: approval needed|Allow rm to run? &lt;b&gt;&amp;&lt;/b&gt;", "Clawboo|Clawboo: task finished|Fix the parser"}
	if strings.Join(srv.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s", strings.Join(srv.calls, "\n"))
	}
	if len(srv.closed) != 1 || srv.closed[0] != 1 {
		t.Fatalf("closed %v", srv.closed)
	}
}

func TestNoSessionBusIsAnErrorNotAnAutolaunch(t *testing.T) {
	env := map[string]string{"XDG_RUNTIME_DIR": t.TempDir()}
	if _, err := newDBusNotifier(func(k string) string { return env[k] }, slog.New(slog.DiscardHandler)); !errors.Is(err, errNoSessionBus) {
		t.Fatalf("got %v", err)
	}
	env = map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}
	if _, err := newDBusNotifier(func(k string) string { return env[k] }, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("a dead bus must fail")
	}
}

func TestABusWithoutANotificationServerLosesNothingElse(t *testing.T) {
	addr := privateBus(t)
	env := map[string]string{"DBUS_SESSION_BUS_ADDRESS": addr}
	n, err := newDBusNotifier(func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// Nobody owns the name: each call fails (ServiceUnknown) and the
	// notifier keeps going and shuts down cleanly.
	for i := 0; i < 3; i++ {
		n.Notify("k", "s", "b")
	}
	n.Close("k")
	n.shutdown()
	n.Notify("after", "s", "b") // after shutdown: ignored, no panic
}
