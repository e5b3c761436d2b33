package devices

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"sync"
	"time"
)

// Pairing window limits.
const (
	CodeTTL    = 5 * time.Minute
	MaxWrong   = 10
	codeBytes  = 16 // 128 bits
	tokenBytes = 32 // 256 bits
)

// Errors a pairing attempt gets; the listener words them alike, so a
// guesser learns nothing from which.
var (
	ErrNoPairing = errors.New("no pairing is open: start one on the computer (Settings → Devices)")
	ErrWrongCode = errors.New("that pairing code is not the one shown")
	ErrExpired   = errors.New("that pairing code expired: start a new one on the computer")
	ErrClosed    = errors.New("too many wrong codes: pairing is closed; start a new one on the computer")
)

// Window is the pairing window: at most one code open at a time.
type Window struct {
	mu      sync.Mutex
	now     func() time.Time
	sum     [sha256.Size]byte
	open    bool
	expires time.Time
	wrong   int
	closed  bool
}

// NewWindow makes a closed window; now defaults to time.Now.
func NewWindow(now func() time.Time) *Window {
	if now == nil {
		now = time.Now
	}
	return &Window{now: now}
}

// Open makes a new one-time code (replacing any open one) and answers it
// with when it expires. Opening resets the count of wrong codes.
func (w *Window) Open() (code string, expires time.Time, err error) {
	if code, err = random(codeBytes); err != nil {
		return "", time.Time{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sum, w.open, w.closed, w.wrong = sha256.Sum256([]byte(code)), true, false, 0
	w.expires = w.now().Add(CodeTTL)
	return code, w.expires, nil
}

// Redeem burns code if it is the open one and still valid; a wrong code
// counts towards closing the window.
func (w *Window) Redeem(code string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return ErrClosed
	case !w.open:
		return ErrNoPairing
	case !w.now().Before(w.expires):
		w.open = false
		return ErrExpired
	}
	sum := sha256.Sum256([]byte(code))
	if subtle.ConstantTimeCompare(sum[:], w.sum[:]) != 1 {
		w.wrong++
		if w.wrong >= MaxWrong {
			w.closed, w.open = true, false
			return ErrClosed
		}
		return ErrWrongCode
	}
	w.open = false // burnt
	return nil
}

// Close ends the window (the last device removed, or the listener off).
func (w *Window) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open = false
}

// newToken is a device token: 256 random bits, URL-safe.
func newToken() (string, error) { return random(tokenBytes) }

// random is n random bytes, URL-safe base64.
func random(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenSum is what is stored of a token.
func tokenSum(token string) []byte {
	s := sha256.Sum256([]byte(token))
	return s[:]
}
