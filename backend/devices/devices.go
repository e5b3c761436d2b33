package devices

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
)

// Errors callers can act on.
var (
	ErrNotFound = errors.New("no such device")
	ErrName     = errors.New("a device's name is 1 to 60 characters, without control characters")
)

// MaxName bounds a device's name.
const MaxName = 60

// seenEvery is how often a device's last use is written (a live stream
// would otherwise write on every request).
const seenEvery = time.Minute

// Device is one paired phone as GET /api/devices lists it.
type Device struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt int64  `json:"createdAt"`
	LastSeen  int64  `json:"lastSeen"`
}

// Service owns the paired devices.
type Service struct {
	st  *store.Store
	now func() time.Time
	// Window is the one pairing window.
	Window *Window
	// Revoked carries the id of each device removed, so the streams it
	// holds end at once.
	Revoked *bus.Broker[string]
	// Changed carries each pairing, renaming and removal, so the
	// computer's page lists the devices afresh.
	Changed *bus.Broker[struct{}]

	mu   sync.Mutex
	seen map[string]int64 // device id → last write of last_seen
}

// New makes the service; now defaults to time.Now.
func New(st *store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{st: st, now: now, Window: NewWindow(now), Revoked: bus.New[string](0), Changed: bus.New[struct{}](0), seen: map[string]int64{}}
}

// CleanName checks a device's name.
func CleanName(n string) (string, error) {
	n = strings.TrimSpace(n)
	if n == "" || utf8.RuneCountInString(n) > MaxName || strings.IndexFunc(n, unicode.IsControl) >= 0 {
		return "", ErrName
	}
	return n, nil
}

// Pair redeems a pairing code and, when it holds, adds the device named
// name; the token is answered once and never kept.
func (s *Service) Pair(ctx context.Context, code, name string) (Device, string, error) {
	name, err := CleanName(name)
	if err != nil {
		return Device{}, "", err
	}
	if err := s.Window.Redeem(code); err != nil {
		return Device{}, "", err
	}
	token, err := newToken()
	if err != nil {
		return Device{}, "", err
	}
	now := s.now().UnixMilli()
	d := Device{ID: ulid.Make().String(), Name: name, CreatedAt: now, LastSeen: now}
	if _, err := s.st.Writer().ExecContext(ctx, `INSERT INTO devices(id, name, token_sum, created_at, last_seen) VALUES (?,?,?,?,?)`,
		d.ID, d.Name, tokenSum(token), now, now); err != nil {
		return Device{}, "", fmt.Errorf("devices: add %s: %w", d.Name, err)
	}
	s.Changed.Publish(struct{}{})
	return d, token, nil
}

// Verify answers the device whose token this is (false: none), noting its
// use at most once a minute.
func (s *Service) Verify(ctx context.Context, token string) (Device, bool) {
	if len(token) < 16 || len(token) > 128 {
		return Device{}, false
	}
	sum := tokenSum(token)
	var d Device
	var stored []byte
	err := s.st.Reader().QueryRowContext(ctx, `SELECT id, name, created_at, last_seen, token_sum FROM devices WHERE token_sum = ?`, sum).
		Scan(&d.ID, &d.Name, &d.CreatedAt, &d.LastSeen, &stored)
	if err != nil || subtle.ConstantTimeCompare(stored, sum) != 1 {
		return Device{}, false
	}
	now := s.now().UnixMilli()
	s.mu.Lock()
	due := now-s.seen[d.ID] >= seenEvery.Milliseconds()
	if due {
		s.seen[d.ID] = now
	}
	s.mu.Unlock()
	if due {
		if _, err := s.st.Writer().ExecContext(ctx, `UPDATE devices SET last_seen = ? WHERE id = ?`, now, d.ID); err == nil {
			d.LastSeen = now
		}
	}
	return d, true
}

// List answers the devices, most recently used first.
func (s *Service) List(ctx context.Context) ([]Device, error) {
	rows, err := s.st.Reader().QueryContext(ctx, `SELECT id, name, created_at, last_seen FROM devices ORDER BY last_seen DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("devices: list: %w", err)
	}
	defer rows.Close()
	out := []Device{}
	for rows.Next() {
		var d Device
		if err := rows.Scan(&d.ID, &d.Name, &d.CreatedAt, &d.LastSeen); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Rename names a device.
func (s *Service) Rename(ctx context.Context, id, name string) (Device, error) {
	name, err := CleanName(name)
	if err != nil {
		return Device{}, err
	}
	res, err := s.st.Writer().ExecContext(ctx, `UPDATE devices SET name = ? WHERE id = ?`, name, id)
	if err != nil {
		return Device{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Device{}, ErrNotFound
	}
	s.Changed.Publish(struct{}{})
	var d Device
	err = s.st.Reader().QueryRowContext(ctx, `SELECT id, name, created_at, last_seen FROM devices WHERE id = ?`, id).Scan(&d.ID, &d.Name, &d.CreatedAt, &d.LastSeen)
	return d, err
}

// Revoke removes a device: its token stops working now, and the streams
// it holds are told to end.
func (s *Service) Revoke(ctx context.Context, id string) (Device, error) {
	var d Device
	err := s.st.Reader().QueryRowContext(ctx, `SELECT id, name, created_at, last_seen FROM devices WHERE id = ?`, id).Scan(&d.ID, &d.Name, &d.CreatedAt, &d.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return Device{}, ErrNotFound
	}
	if err != nil {
		return Device{}, err
	}
	if _, err := s.st.Writer().ExecContext(ctx, `DELETE FROM devices WHERE id = ?`, id); err != nil {
		return Device{}, fmt.Errorf("devices: remove %s: %w", d.Name, err)
	}
	s.mu.Lock()
	delete(s.seen, id)
	s.mu.Unlock()
	s.Revoked.PublishMust(id)
	s.Changed.Publish(struct{}{})
	return d, nil
}

// Count answers how many devices are paired (the listener goes off at 0).
func (s *Service) Count(ctx context.Context) (int, error) {
	var n int
	err := s.st.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM devices`).Scan(&n)
	return n, err
}
