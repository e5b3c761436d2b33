package routines

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
	"github.com/oklog/ulid/v2"
)

// Errors callers can match.
var (
	ErrNotFound   = errors.New("no such schedule")
	ErrConflict   = errors.New("schedule conflict")
	ErrNoAgent    = errors.New("unknown agent")
	ErrBadRequest = errors.New("invalid schedule request")
)

// Firer starts a fire's work and blocks until it has ended. The host
// implements it (a task through the task runner, or a Gateway turn).
type Firer interface {
	Fire(ctx context.Context, req FireRequest) FireResult
}

// FireRequest is one fire to carry out.
type FireRequest struct {
	Schedule Schedule
	FireID   string
	Manual   bool
	// Started records the run (and task) as soon as it exists.
	Started func(runID, taskID string)
}

// FireResult is how a fire ended. Outcome is success, failed or skipped.
type FireResult struct {
	Outcome  string
	Reason   string
	RunID    string
	TaskID   string
	CostNano int64
}

// Options wire a Service.
type Options struct {
	Store  *store.Store
	Firer  Firer
	Clock  Clock // nil: the real clock
	Log    *slog.Logger
	Events *bus.Broker[Event] // nil: a private one
	// Grace is the missed-fire grace window (nil: the routine-grace
	// setting, else DefaultGrace).
	Grace func(ctx context.Context) time.Duration
	// Owner names this process in claims (default a fresh ULID).
	Owner string
}

// Defaults.
const (
	DefaultGrace = time.Hour
	MaxSleep     = 60 * time.Second // the timer never sleeps longer
	leaseFor     = 5 * time.Minute  // a fire's lease; renewed every MaxSleep
	GraceSetting = "routine-grace-minutes"
)

// Service keeps schedules and fires them.
type Service struct {
	db     *store.Store
	firer  Firer
	clock  Clock
	log    *slog.Logger
	owner  string
	grace  func(ctx context.Context) time.Duration
	Events *bus.Broker[Event]

	wake   chan struct{}
	mu     sync.Mutex
	closed bool
	// throttledUntil is when the next fire may begin, while the timer is
	// at MaxFiresPerMinute (zero otherwise).
	throttledUntil time.Time
	root           context.Context
	cancel         context.CancelFunc
	wg             sync.WaitGroup
}

// New makes a service; Start begins its timer.
func New(o Options) *Service {
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Events == nil {
		o.Events = bus.New[Event](0)
	}
	if o.Owner == "" {
		o.Owner = ulid.Make().String()
	}
	s := &Service{
		db: o.Store, firer: o.Firer, clock: o.Clock, log: o.Log, owner: o.Owner, grace: o.Grace,
		Events: o.Events, wake: make(chan struct{}, 1),
	}
	if s.grace == nil {
		s.grace = s.graceSetting
	}
	s.root, s.cancel = context.WithCancel(context.Background())
	return s
}

// Grace reads the grace window setting.
func (s *Service) graceSetting(ctx context.Context) time.Duration {
	v, err := s.db.GetSetting(ctx, GraceSetting)
	if err != nil || v == "" {
		return DefaultGrace
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return DefaultGrace
	}
	return time.Duration(n) * time.Minute
}

// SetGrace stores the grace window in minutes (0–1440).
func (s *Service) SetGrace(ctx context.Context, minutes int) error {
	if minutes < 0 || minutes > 1440 {
		return fmt.Errorf("%w: the grace window is 0 to 1440 minutes", ErrBadRequest)
	}
	return s.db.PutSetting(ctx, GraceSetting, strconv.Itoa(minutes), s.clock.Now().UnixMilli())
}

// GraceWindow is the grace window in effect.
func (s *Service) GraceWindow(ctx context.Context) time.Duration { return s.grace(ctx) }

// NewSchedule is what a person asks for.
type NewSchedule struct {
	AgentID  string
	TeamID   string
	Spec     string
	Timezone string
	Template Template
}

// Create stores a schedule and arms it.
func (s *Service) Create(ctx context.Context, n NewSchedule) (Schedule, error) {
	// No timezone is the machine's, kept by name so the schedule means the
	// same hours if the machine's zone changes later.
	if strings.TrimSpace(n.Timezone) == "" {
		n.Timezone = MachineZone()
	}
	spec, err := ParseSpec(n.Spec, n.Timezone)
	if err != nil {
		return Schedule{}, err
	}
	if err := n.Template.Normalize(); err != nil {
		return Schedule{}, err
	}
	n.AgentID = strings.TrimSpace(n.AgentID)
	if n.AgentID == "" {
		return Schedule{}, fmt.Errorf("%w: agentId is required", ErrBadRequest)
	}
	if ok, err := s.db.AgentExists(ctx, n.AgentID); err != nil {
		return Schedule{}, err
	} else if !ok {
		return Schedule{}, fmt.Errorf("%w '%s'", ErrNoAgent, n.AgentID)
	}
	if err := s.checkMember(ctx, n.AgentID, strings.TrimSpace(n.TeamID)); err != nil {
		return Schedule{}, err
	}
	if err := s.checkRoom(ctx); err != nil {
		return Schedule{}, err
	}
	now := s.clock.Now()
	if spec.Once() {
		if _, ok := spec.Next(now); !ok {
			return Schedule{}, fmt.Errorf("%w: that once@ time has already passed", ErrSpec)
		}
	}
	id := ulid.Make().String()
	var next any
	if t, ok := spec.Next(now); ok {
		next = t.UnixMilli()
	}
	_, err = s.db.Writer().ExecContext(ctx, `INSERT INTO schedules (id, agent_id, team_id, spec, timezone, template, status, next_run_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, 'idle', ?, ?, ?)`, id, n.AgentID, optStr(n.TeamID), spec.String(), strings.TrimSpace(n.Timezone),
		encodeTemplate(n.Template), next, now.UnixMilli(), now.UnixMilli())
	if err != nil && strings.Contains(err.Error(), "FOREIGN KEY") {
		return Schedule{}, fmt.Errorf("%w: unknown team '%s'", ErrBadRequest, n.TeamID)
	}
	if err != nil {
		return Schedule{}, err
	}
	return s.changed(ctx, id)
}

// Get is one schedule.
func (s *Service) Get(ctx context.Context, id string) (Schedule, error) {
	r, err := s.getRow(ctx, s.db.Reader(), id)
	if err != nil {
		return Schedule{}, err
	}
	return s.view(r.Schedule), nil
}

// List is every schedule, oldest first.
func (s *Service) List(ctx context.Context) ([]Schedule, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+scheduleCols+` FROM schedules ORDER BY created_at, id LIMIT 5000`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Schedule{}
	for rows.Next() {
		r, err := scanSchedule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s.view(r.Schedule))
	}
	return out, rows.Err()
}

// view adds what is computed: the words and the next five times.
func (s *Service) view(sc Schedule) Schedule {
	sc.NextRuns = []int64{}
	spec, err := ParseSpec(sc.Spec, sc.Timezone)
	if err != nil {
		sc.Description = sc.Spec
		return sc
	}
	sc.Description = Describe(spec)
	if sc.NextRunAt != nil {
		first := time.UnixMilli(*sc.NextRunAt)
		sc.NextRuns = append(sc.NextRuns, first.UnixMilli())
		for _, t := range spec.NextN(first, 4) {
			sc.NextRuns = append(sc.NextRuns, t.UnixMilli())
		}
	}
	return sc
}

// Patch changes a schedule's spec, timezone or template (nil: unchanged).
type Patch struct {
	Spec     *string
	Timezone *string
	Template *Template
}

// Update applies a patch; a new spec or timezone re-arms from now.
func (s *Service) Update(ctx context.Context, id string, p Patch) (Schedule, error) {
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		r, err := s.getRow(ctx, tx, id)
		if err != nil {
			return err
		}
		specText, tz := r.Spec, r.Timezone
		if p.Spec != nil {
			specText = *p.Spec
		}
		if p.Timezone != nil {
			tz = strings.TrimSpace(*p.Timezone)
		}
		spec, err := ParseSpec(specText, tz)
		if err != nil {
			return err
		}
		tmpl := r.Template
		if p.Template != nil {
			tmpl = *p.Template
			if err := tmpl.Normalize(); err != nil {
				return err
			}
		}
		now := s.clock.Now()
		next := r.NextRunAt
		if p.Spec != nil || p.Timezone != nil {
			next = nil
			if t, ok := spec.Next(now); ok {
				ms := t.UnixMilli()
				next = &ms
			} else if spec.Once() {
				return fmt.Errorf("%w: that once@ time has already passed", ErrSpec)
			}
		}
		if r.Status == Paused || r.Status == Error {
			// Stays disarmed until resumed; resume computes the next time.
			next = nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE schedules SET spec = ?, timezone = ?, template = ?, next_run_at = ?, updated_at = ? WHERE id = ?`,
			spec.String(), tz, encodeTemplate(tmpl), next, now.UnixMilli(), id)
		return err
	})
	if err != nil {
		return Schedule{}, err
	}
	return s.changed(ctx, id)
}

// Pause disarms a schedule (a running fire finishes; it is not re-armed).
func (s *Service) Pause(ctx context.Context, id string) (Schedule, error) {
	res, err := s.db.Writer().ExecContext(ctx, `UPDATE schedules SET status = 'paused', next_run_at = NULL, updated_at = ? WHERE id = ?`,
		s.clock.Now().UnixMilli(), id)
	if err := notFound(res, err); err != nil {
		return Schedule{}, err
	}
	return s.changed(ctx, id)
}

// Resume re-arms a paused or failed schedule from now and clears its
// failures; a once@ whose time has passed cannot be resumed.
func (s *Service) Resume(ctx context.Context, id string) (Schedule, error) {
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		r, err := s.getRow(ctx, tx, id)
		if err != nil {
			return err
		}
		if r.Status != Paused && r.Status != Error {
			return fmt.Errorf("%w: the schedule is %s, not paused", ErrConflict, r.Status)
		}
		spec, err := ParseSpec(r.Spec, r.Timezone)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		t, ok := spec.Next(now)
		if !ok {
			return fmt.Errorf("%w: its once@ time has passed; give it a new time", ErrConflict)
		}
		_, err = tx.ExecContext(ctx, `UPDATE schedules SET status = 'idle', next_run_at = ?, failures = 0, last_error = NULL, owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?`,
			t.UnixMilli(), now.UnixMilli(), id)
		return err
	})
	if err != nil {
		return Schedule{}, err
	}
	return s.changed(ctx, id)
}

// Delete removes a schedule and its history; a running fire finishes.
func (s *Service) Delete(ctx context.Context, id string) error {
	res, err := s.db.Writer().ExecContext(ctx, `DELETE FROM schedules WHERE id = ?`, id)
	if err := notFound(res, err); err != nil {
		return err
	}
	s.Events.PublishMust(Event{Deleted: id})
	return nil
}

// Fires is a schedule's ledger, newest first; before is a fire id cursor.
func (s *Service) Fires(ctx context.Context, id, before string, limit int) ([]Fire, string, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, "", err
	}
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	q := `SELECT ` + fireCols + ` FROM schedule_fires WHERE schedule_id = ?`
	args := []any{id}
	if before != "" {
		q += ` AND id < ?`
		args = append(args, before)
	}
	rows, err := s.db.Reader().QueryContext(ctx, q+` ORDER BY id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	out := []Fire{}
	for rows.Next() {
		f, err := scanFire(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, f)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, rows.Err()
}

func notFound(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// changed reads a schedule back, publishes it and re-arms the timer.
func (s *Service) changed(ctx context.Context, id string) (Schedule, error) {
	sc, err := s.Get(ctx, id)
	if err != nil {
		return sc, err
	}
	s.Events.PublishMust(Event{Schedule: &sc})
	s.poke()
	return sc, nil
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
