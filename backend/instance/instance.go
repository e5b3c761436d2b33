// Package instance keeps one Clawboo per home: the desktop app or `clawboo
// serve`, never both and never two of either, since two backends on one
// database would fire routines twice, fight over claims and worktrees and
// overwrite each other's port file.
//
// The holder takes an exclusive lock on <home>/clawboo.lock (flock(2) on
// Linux and the BSDs, an unshared handle on Windows), writes who it is to
// <home>/clawboo.instance.json (pid, mode, the URL it serves, start time;
// 0600), and, for the desktop app, answers on a unix socket so a second
// launch can ask it to show its window instead of starting another.
//
// Invariants:
//   - The lock is the kernel's, never a file's existence: it goes when the
//     holder's process goes, however it goes (kill -9, a crash, power loss),
//     so a lock never outlives its holder and nothing has to be cleaned up
//     by hand. The lock file is never removed (removing it would let a
//     waiter and a newcomer lock two different files); it is opened
//     close-on-exec, so no child (an agent CLI, a WebKit helper) keeps it
//     locked after Clawboo is gone.
//   - Acquire never waits: a home in use is an *InUseError at once, naming
//     the holder from its instance file. The file is written only by the
//     lock's holder (atomically, by rename), so a stale one left by a crash
//     is overwritten by the next holder; a reader that finds a dead pid
//     there waits briefly for the new holder to write.
//   - The caller takes the lock before the backend opens the database and
//     releases it last, after the database is closed.
//   - The desktop's socket is <home>/clawboo.sock, or, when that path is too
//     long for a unix socket address (about 100 bytes), clawboo-<hash of the
//     home>.sock in $XDG_RUNTIME_DIR or in a private clawboo-<uid> folder of
//     the temporary directory (0700, owned by this user, no symlink). The
//     socket is 0600, is made only by the lock's holder (which removes a
//     stale one first), and on Linux also refuses a peer of another uid
//     (SO_PEERCRED).
//   - The socket understands one command, "raise\n", answered "ok\n". Any
//     other input is hostile: the read is bounded (64 bytes) and has a
//     deadline (2 s), at most a few connections are served at once, and
//     anything but the command is closed unanswered. A raise is only a
//     signal on Raises (coalesced); it carries no data.
package instance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Mode is what holds a home.
type Mode string

const (
	Desktop Mode = "desktop" // the desktop app (`clawboo`)
	Serve   Mode = "serve"   // `clawboo serve`
)

// Name is how a message names a holder of this mode.
func (m Mode) Name() string {
	switch m {
	case Desktop:
		return "the Clawboo desktop app"
	case Serve:
		return "clawboo serve"
	}
	return "another clawboo"
}

// File names under the home.
const (
	LockFile   = "clawboo.lock"
	InfoFile   = "clawboo.instance.json"
	SocketFile = "clawboo.sock"
)

// Info is who holds a home, as written to <home>/clawboo.instance.json.
type Info struct {
	PID     int       `json:"pid"`
	Mode    Mode      `json:"mode"`
	Home    string    `json:"home"`
	URL     string    `json:"url,omitempty"`    // where it serves; "" while starting
	Socket  string    `json:"socket,omitempty"` // the desktop's raise socket
	Started time.Time `json:"started"`
}

// InUseError is Acquire's answer when another process holds the home.
type InUseError struct {
	Home string
	// Holder is read from the instance file; Known is false when that
	// file was missing or unreadable (a holder that has not written it yet
	// after waiting, or one that is not Clawboo).
	Holder Info
	Known  bool
}

func (e *InUseError) Error() string {
	if !e.Known {
		return fmt.Sprintf("the home %s is in use by another clawboo (%s names no live process)", e.Home, InfoFile)
	}
	url := e.Holder.URL
	if url == "" {
		url = "starting"
	}
	return fmt.Sprintf("the home %s is in use by %s (pid %d, %s)", e.Home, e.Holder.Mode.Name(), e.Holder.PID, url)
}

// Protocol of the raise socket.
const (
	raiseCmd     = "raise\n"
	raiseOK      = "ok\n"
	maxRequest   = 64
	connDeadline = 2 * time.Second
	maxConns     = 4
	// maxSocketPath keeps under the smallest sun_path (104 bytes on the
	// BSDs and macOS, 108 on Linux) with room for the terminating NUL.
	maxSocketPath = 100
)

// Lock is a held home. Release it last, after the database is closed.
type Lock struct {
	home string
	file lockFile

	mu   sync.Mutex
	info Info

	ln        net.Listener
	socketErr error
	raises    chan struct{}
	conns     chan struct{} // a semaphore of maxConns
	wg        sync.WaitGroup
	released  bool
}

// Acquire takes the home for this process in the given mode, creating the
// home (0700) if needed. It never waits: if another process holds the home
// it returns an *InUseError naming it. A desktop lock also listens on the
// raise socket; if that cannot be made the lock still holds, without it
// (SocketErr says why).
func Acquire(home string, mode Mode) (*Lock, error) {
	if home == "" || !filepath.IsAbs(home) {
		return nil, fmt.Errorf("instance: home %q is not an absolute path", home)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("create home %s: %w", home, err)
	}
	f, held, err := lock(filepath.Join(home, LockFile))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", filepath.Join(home, LockFile), err)
	}
	if held {
		holder, known := readHolder(home)
		return nil, &InUseError{Home: home, Holder: holder, Known: known}
	}
	l := &Lock{
		home:   home,
		file:   f,
		info:   Info{PID: os.Getpid(), Mode: mode, Home: home, Started: time.Now().UTC().Truncate(time.Millisecond)},
		raises: make(chan struct{}, 1),
		conns:  make(chan struct{}, maxConns),
	}
	if mode == Desktop {
		l.socketErr = l.listen()
	}
	if err := l.writeInfo(); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// Info is what this lock has written about its holder.
func (l *Lock) Info() Info {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

// SocketErr is why a desktop lock has no raise socket (nil when it has).
func (l *Lock) SocketErr() error { return l.socketErr }

// Raises delivers one value per raise request (coalesced: requests that
// arrive before the last was taken count once).
func (l *Lock) Raises() <-chan struct{} { return l.raises }

// SetURL records where the holder serves, for the message a second launch
// prints.
func (l *Lock) SetURL(url string) error {
	l.mu.Lock()
	l.info.URL = url
	l.mu.Unlock()
	return l.writeInfo()
}

// Release stops the socket, removes the socket and the instance file, and
// unlocks. It is safe to call more than once.
func (l *Lock) Release() error {
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return nil
	}
	l.released = true
	l.mu.Unlock()
	var errs []error
	if l.ln != nil {
		errs = append(errs, l.ln.Close())
		l.wg.Wait()
		if err := os.Remove(l.Info().Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(filepath.Join(l.home, InfoFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	errs = append(errs, l.file.unlock()) // last: the home is free from here on
	return errors.Join(errs...)
}

func (l *Lock) writeInfo() error {
	l.mu.Lock()
	b, err := json.MarshalIndent(l.info, "", "  ")
	l.mu.Unlock()
	if err != nil {
		return err
	}
	path := filepath.Join(l.home, InfoFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// holderWait bounds how long readHolder waits for a holder that has taken
// the lock but not yet written its instance file.
const holderWait = 2 * time.Second

// readHolder reads the instance file, waiting briefly while it is missing
// or names a process that is not alive (a crashed holder's leftover, about
// to be overwritten by the one now holding the lock).
func readHolder(home string) (Info, bool) {
	deadline := time.Now().Add(holderWait)
	for {
		info, err := ReadInfo(home)
		if err == nil && info.PID > 0 && alive(info.PID) {
			return info, true
		}
		if time.Now().After(deadline) {
			return Info{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReadInfo reads <home>/clawboo.instance.json as it stands (it may be a
// crashed holder's leftover: only a failed Acquire says the home is held).
func ReadInfo(home string) (Info, error) {
	var info Info
	b, err := os.ReadFile(filepath.Join(home, InfoFile))
	if err != nil {
		return info, err
	}
	if len(b) > 64<<10 {
		return info, fmt.Errorf("%s is too large", InfoFile)
	}
	return info, json.Unmarshal(b, &info)
}

// SocketPath is where the desktop on home listens: in the home when the
// path fits a unix socket address, else named by a hash of the home in a
// private folder of this user.
func SocketPath(home string) (string, error) {
	p := filepath.Join(home, SocketFile)
	if len(p) <= maxSocketPath {
		return p, nil
	}
	sum := sha256.Sum256([]byte(filepath.Clean(home)))
	name := "clawboo-" + hex.EncodeToString(sum[:8]) + ".sock"
	dir, err := privateDir()
	if err != nil {
		return "", err
	}
	p = filepath.Join(dir, name)
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("no short enough place for the socket of %s (tried %s)", home, p)
	}
	return p, nil
}

// privateDir is $XDG_RUNTIME_DIR when it is this user's and private, else
// a clawboo-<uid> folder of the temporary directory that is (made if
// missing).
func privateDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) && ownedPrivateDir(d) == nil {
		return d, nil
	}
	d := filepath.Join(os.TempDir(), "clawboo-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	if err := ownedPrivateDir(d); err != nil {
		return "", fmt.Errorf("socket folder %s: %w", d, err)
	}
	return d, nil
}

// listen makes the raise socket and serves it in the background.
func (l *Lock) listen() error {
	path, err := SocketPath(l.home)
	if err != nil {
		return err
	}
	// Only the lock's holder gets here: a socket left at path is a crashed
	// holder's (or planted), never a live one's.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	ln, err := listenPrivate(path)
	if err != nil {
		return err
	}
	l.ln = ln
	l.info.Socket = path
	l.wg.Add(1)
	go l.accept()
	return nil
}

// listenPrivate listens on a unix socket and makes it 0600. Between the
// bind and the chmod it has the umask's mode, which lets no other user
// connect either (connecting needs write permission, which a umask of 022
// or stricter leaves to the owner), and on Linux samePeer checks again.
func listenPrivate(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false) // Release removes it, once the accept loop is done
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func (l *Lock) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return // by Release
		}
		if err != nil { // out of descriptors, say: not a reason to stop
			time.Sleep(50 * time.Millisecond)
			continue
		}
		select {
		case l.conns <- struct{}{}:
		default:
			c.Close() // too many at once: someone is flooding
			continue
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer func() { <-l.conns }()
			l.serveConn(c)
		}()
	}
}

// serveConn answers one connection: exactly "raise\n" from this user within
// the deadline gets "ok\n"; anything else is closed unanswered.
func (l *Lock) serveConn(c net.Conn) {
	defer c.Close()
	if err := samePeer(c); err != nil {
		return
	}
	_ = c.SetDeadline(time.Now().Add(connDeadline))
	buf := make([]byte, 0, maxRequest)
	tmp := make([]byte, maxRequest)
	for len(buf) < maxRequest && bytes.IndexByte(buf, '\n') < 0 {
		n, err := c.Read(tmp[:maxRequest-len(buf)])
		buf = append(buf, tmp[:n]...)
		if err != nil {
			break
		}
	}
	if string(buf) != raiseCmd {
		return
	}
	select {
	case l.raises <- struct{}{}:
	default: // one is pending already
	}
	_, _ = io.WriteString(c, raiseOK)
}

// Raise asks the desktop holding a home to show its window, through the
// socket its instance file names, and waits for its "ok" (bounded by
// timeout).
func Raise(holder Info, timeout time.Duration) error {
	if holder.Mode != Desktop {
		return fmt.Errorf("%s has no window to raise", holder.Mode.Name())
	}
	if holder.Socket == "" {
		return fmt.Errorf("%s (pid %d) has no raise socket", holder.Mode.Name(), holder.PID)
	}
	deadline := time.Now().Add(timeout)
	c, err := net.DialTimeout("unix", holder.Socket, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := io.WriteString(c, raiseCmd); err != nil {
		return err
	}
	b, err := io.ReadAll(io.LimitReader(c, maxRequest))
	if err != nil {
		return err
	}
	if string(b) != raiseOK {
		return fmt.Errorf("the desktop app (pid %d) answered %q, not ok", holder.PID, b)
	}
	return nil
}
