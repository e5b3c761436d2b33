package instance

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func acquire(t *testing.T, home string, mode Mode) *Lock {
	t.Helper()
	l, err := Acquire(home, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Release() })
	return l
}

func inUse(t *testing.T, err error) *InUseError {
	t.Helper()
	var iu *InUseError
	if !errors.As(err, &iu) {
		t.Fatalf("want an *InUseError, got %v", err)
	}
	return iu
}

func TestInstanceHeldLockRefusesASecondNamingTheHolder(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	l := acquire(t, home, Serve)
	if err := l.SetURL("http://127.0.0.1:18790"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(home, InfoFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("instance file: %v %v", fi, err)
	}
	// The holder's pid is this process's, which readHolder skips as "not
	// another": write the file as if a live other process held it.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	l.mu.Lock()
	l.info.PID = other.Process.Pid
	l.mu.Unlock()
	if err := l.writeInfo(); err != nil {
		t.Fatal(err)
	}

	for _, mode := range []Mode{Serve, Desktop} {
		_, err := Acquire(home, mode)
		iu := inUse(t, err)
		if !iu.Known || iu.Holder.PID != other.Process.Pid || iu.Holder.Mode != Serve || iu.Holder.URL != "http://127.0.0.1:18790" {
			t.Fatalf("holder %+v", iu)
		}
		want := "the home " + home + " is in use by clawboo serve (pid " + strconv.Itoa(other.Process.Pid) + ", http://127.0.0.1:18790)"
		if err.Error() != want {
			t.Fatalf("message %q, want %q", err, want)
		}
	}
	// The refusals left the holder's file alone.
	info, err := ReadInfo(home)
	if err != nil || info.PID != other.Process.Pid {
		t.Fatalf("after the refusals: %+v %v", info, err)
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, InfoFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the instance file outlived Release: %v", err)
	}
	acquire(t, home, Serve) // free again
}

func TestInstanceUnknownHolderSaysSo(t *testing.T) {
	home := t.TempDir()
	l := acquire(t, home, Serve)
	_ = os.Remove(filepath.Join(home, InfoFile))
	start := time.Now()
	_, err := Acquire(home, Serve)
	iu := inUse(t, err)
	if iu.Known || !strings.Contains(err.Error(), "in use by another clawboo") {
		t.Fatalf("%+v: %v", iu, err)
	}
	if d := time.Since(start); d > holderWait+time.Second {
		t.Fatalf("waited %v for the holder's file", d)
	}
	_ = l
}

// TestInstanceHelperProcess is the child of the kill -9 test: it takes the
// home and waits to be killed.
func TestInstanceHelperProcess(t *testing.T) {
	home := os.Getenv("CLAWBOO_INSTANCE_HELPER_HOME")
	if home == "" {
		t.Skip("only as the child of TestInstanceKill9FreesTheHome")
	}
	l, err := Acquire(home, Mode(os.Getenv("CLAWBOO_INSTANCE_HELPER_MODE")))
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	_ = l.SetURL("http://127.0.0.1:1")
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Minute)
	os.Exit(2)
}

func TestInstanceKill9FreesTheHome(t *testing.T) {
	for _, mode := range []Mode{Serve, Desktop} {
		t.Run(string(mode), func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestInstanceHelperProcess$")
			cmd.Env = append(os.Environ(), "CLAWBOO_INSTANCE_HELPER_HOME="+home, "CLAWBOO_INSTANCE_HELPER_MODE="+string(mode))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "locked\n" {
				t.Fatalf("child said %q", line)
			}

			_, err = Acquire(home, mode)
			iu := inUse(t, err)
			if !iu.Known || iu.Holder.PID != cmd.Process.Pid || iu.Holder.Mode != mode {
				t.Fatalf("holder %+v, want the child %d", iu, cmd.Process.Pid)
			}
			if mode == Desktop {
				if err := Raise(iu.Holder, 2*time.Second); err != nil {
					t.Fatalf("raise the live child: %v", err)
				}
			}

			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			// Its instance file and socket are left behind; neither matters.
			if _, err := ReadInfo(home); err != nil {
				t.Fatalf("the crashed child's instance file: %v", err)
			}
			l := acquire(t, home, mode)
			if info := l.Info(); info.PID != os.Getpid() || info.URL != "" {
				t.Fatalf("new holder's info %+v", info)
			}
			if got, err := ReadInfo(home); err != nil || got.PID != os.Getpid() {
				t.Fatalf("the instance file is not the new holder's: %+v %v", got, err)
			}
			if mode == Desktop {
				if err := Raise(l.Info(), 2*time.Second); err != nil {
					t.Fatalf("raise the new holder over the crashed one's socket path: %v", err)
				}
				waitRaise(t, l)
			}
		})
	}
}

func waitRaise(t *testing.T, l *Lock) {
	t.Helper()
	select {
	case <-l.Raises():
	case <-time.After(2 * time.Second):
		t.Fatal("no raise delivered")
	}
}

func noRaise(t *testing.T, l *Lock) {
	t.Helper()
	select {
	case <-l.Raises():
		t.Fatal("a raise was delivered")
	case <-time.After(50 * time.Millisecond):
	}
}

func TestInstanceSocketAnswersRaise(t *testing.T) {
	home := t.TempDir()
	l := acquire(t, home, Desktop)
	if err := l.SocketErr(); err != nil {
		t.Fatal(err)
	}
	info := l.Info()
	if info.Socket != filepath.Join(home, SocketFile) {
		t.Fatalf("socket %q", info.Socket)
	}
	fi, err := os.Stat(info.Socket)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket file %v %v", fi, err)
	}
	on, err := ReadInfo(home)
	if err != nil || on.Socket != info.Socket || on.Mode != Desktop {
		t.Fatalf("instance file %+v %v", on, err)
	}
	for range 3 { // coalesced while nobody takes them
		if err := Raise(info, 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	waitRaise(t, l)
	noRaise(t, l)
	if err := Raise(Info{Mode: Serve}, time.Second); err == nil {
		t.Fatal("raised a serve")
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(info.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket outlived Release: %v", err)
	}
	if err := Raise(info, time.Second); err == nil {
		t.Fatal("raised a released lock")
	}
}

// exchange sends junk and returns what came back before the server closed.
func exchange(t *testing.T, path string, send []byte, closeWrite bool) string {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if len(send) > 0 {
		_, _ = c.Write(send) // may fail once the server has hung up
	}
	if closeWrite {
		_ = c.(*net.UnixConn).CloseWrite()
	}
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open past its deadline")
	}
	return string(b)
}

func TestInstanceSocketRefusesJunk(t *testing.T) {
	l := acquire(t, t.TempDir(), Desktop)
	path := l.Info().Socket
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = 'r'
	}
	for name, tc := range map[string]struct {
		send       []byte
		closeWrite bool
	}{
		"http":          {[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), false},
		"raise twice":   {[]byte("raise\nraise\n"), false},
		"raise no nl":   {[]byte("raise"), true},
		"raise crlf":    {[]byte("raise\r\n"), false},
		"upper":         {[]byte("RAISE\n"), false},
		"nul":           {[]byte("raise\x00\n"), false},
		"a megabyte":    {big, false},
		"nothing":       {nil, true},
		"empty line":    {[]byte("\n"), false},
		"raise + extra": {[]byte("raise\n; rm -rf /\n"), false},
	} {
		if got := exchange(t, path, tc.send, tc.closeWrite); got != "" {
			t.Errorf("%s: answered %q", name, got)
		}
	}
	noRaise(t, l)

	// A client that connects and says nothing is cut at the deadline.
	start := time.Now()
	if got := exchange(t, path, nil, false); got != "" {
		t.Fatalf("silent client got %q", got)
	}
	if d := time.Since(start); d < connDeadline/2 || d > connDeadline+2*time.Second {
		t.Fatalf("silent client cut after %v, want about %v", d, connDeadline)
	}

	// Slow clients beyond the limit are dropped, and the server still works.
	var held []net.Conn
	for range maxConns + 4 {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond)
	for _, c := range held {
		c.Close()
	}
	waitFree := time.Now().Add(connDeadline + time.Second)
	for {
		err := Raise(l.Info(), time.Second)
		if err == nil {
			break
		}
		if time.Now().After(waitFree) {
			t.Fatalf("after the junk the socket does not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitRaise(t, l)
}

func TestInstanceLongHome(t *testing.T) {
	home := t.TempDir()
	for len(home) < 220 {
		home = filepath.Join(home, strings.Repeat("deep", 10))
	}
	l := acquire(t, home, Desktop)
	if err := l.SocketErr(); err != nil {
		t.Fatal(err)
	}
	info := l.Info()
	if len(info.Socket) > maxSocketPath || strings.HasPrefix(info.Socket, home) {
		t.Fatalf("socket %q for a %d-byte home", info.Socket, len(home))
	}
	if p, err := SocketPath(home); err != nil || p != info.Socket {
		t.Fatalf("SocketPath %q %v, the lock used %q", p, err, info.Socket)
	}
	if err := ownedPrivateDir(filepath.Dir(info.Socket)); err != nil {
		t.Fatal(err)
	}
	if err := Raise(info, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	waitRaise(t, l)
	_, err := Acquire(home, Desktop)
	inUse(t, err)

	// Another long home gets another socket.
	other := filepath.Join(filepath.Dir(home), strings.Repeat("x", 60))
	p, err := SocketPath(other)
	if err != nil || p == info.Socket {
		t.Fatalf("two homes share %q (%v)", p, err)
	}
}

func TestInstanceRefusesAPlantedSocketFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", tmp)
	// Someone made the private folder first, open to all: not used.
	if err := os.Mkdir(filepath.Join(tmp, "clawboo-"+strconv.Itoa(os.Getuid())), 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(filepath.Join(tmp, "clawboo-"+strconv.Itoa(os.Getuid())), 0o777)
	home := filepath.Join(tmp, strings.Repeat("h", 120))
	if _, err := SocketPath(home); err == nil {
		t.Fatal("used a folder open to others")
	}
	// The lock still holds without the socket, and says why.
	l := acquire(t, home, Desktop)
	if l.SocketErr() == nil || l.Info().Socket != "" {
		t.Fatalf("socket %q err %v", l.Info().Socket, l.SocketErr())
	}
	if err := Raise(l.Info(), time.Second); err == nil {
		t.Fatal("raised without a socket")
	}
}

func TestInstanceRefusesARelativeHome(t *testing.T) {
	if _, err := Acquire("relative/home", Serve); err == nil {
		t.Fatal("took a relative home")
	}
}

// TestInstanceHelperRaise is the other user's client in
// TestInstanceSocketRefusesAnotherUser.
func TestInstanceHelperRaise(t *testing.T) {
	sock := os.Getenv("CLAWBOO_INSTANCE_HELPER_RAISE")
	if sock == "" {
		t.Skip("only as the child of TestInstanceSocketRefusesAnotherUser")
	}
	if err := Raise(Info{Mode: Desktop, Socket: sock}, 3*time.Second); err != nil {
		os.Stdout.WriteString("refused: " + err.Error() + "\n")
		os.Exit(0)
	}
	os.Stdout.WriteString("raised\n")
	os.Exit(0)
}

// TestInstanceSocketRefusesAnotherUser opens the socket's mode to everyone
// and connects as another uid: SO_PEERCRED must still keep it out.
func TestInstanceSocketRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("SO_PEERCRED is checked on Linux only")
	}
	pub, err := os.MkdirTemp("", "clawboo-peer")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(pub)
	_ = os.Chmod(pub, 0o755)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(pub, "client.test")
	if err := os.WriteFile(client, self, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(pub, "home")
	l := acquire(t, home, Desktop)
	_ = os.Chmod(home, 0o755)
	sock := l.Info().Socket
	_ = os.Chmod(sock, 0o666)

	cmd := exec.Command(client, "-test.run=^TestInstanceHelperRaise$")
	cmd.Dir = pub
	cmd.Env = []string{"CLAWBOO_INSTANCE_HELPER_RAISE=" + sock, "HOME=" + pub}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "refused") {
		t.Fatalf("another user's raise: %v %s", err, out)
	}
	noRaise(t, l)
	// The owner still gets in.
	if err := Raise(l.Info(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	waitRaise(t, l)
}
