package quota

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The threshold setting: work is held back at or above this share of a
// window (percent, 1..100).
const (
	ThresholdSetting = "quota-threshold-percent"
	DefaultThreshold = 95.0
	// retryUnknown is when work held back by a window with no reset time
	// is tried again.
	retryUnknown = 15 * time.Minute
)

// Threshold is the user's threshold in percent.
func (s *Service) Threshold(ctx context.Context) float64 {
	v, err := s.opts.Store.GetSetting(ctx, ThresholdSetting)
	if err != nil || v == "" {
		return DefaultThreshold
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 1 || f > 100 {
		return DefaultThreshold
	}
	return f
}

// SetThreshold stores the threshold (1..100 percent).
func (s *Service) SetThreshold(ctx context.Context, pct float64) error {
	if math.IsNaN(pct) || pct < 1 || pct > 100 {
		return fmt.Errorf("%w: the threshold is a percentage from 1 to 100", ErrBadRequest)
	}
	if err := s.opts.Store.PutSetting(ctx, ThresholdSetting, strconv.FormatFloat(pct, 'f', -1, 64), s.opts.Now().UnixMilli()); err != nil {
		return err
	}
	s.publish(Event{Kind: "settings"})
	return nil
}

// Limit is a quota budget: work of an agent or team waits once the window
// is at MaxPercent (lower than the threshold, for that work only).
type Limit struct {
	Scope      string  `json:"scope"` // agent | team
	ScopeID    string  `json:"scopeId"`
	Runtime    string  `json:"runtime"` // "" = any runtime
	Window     string  `json:"window"`
	MaxPercent float64 `json:"maxPercent"`
	CreatedAt  int64   `json:"createdAt"`
}

// SetLimit creates or replaces a quota budget.
func (s *Service) SetLimit(ctx context.Context, l Limit) (Limit, error) {
	if l.Scope != "agent" && l.Scope != "team" {
		return Limit{}, fmt.Errorf("%w: scope is agent or team", ErrBadRequest)
	}
	if l.ScopeID == "" || len(l.ScopeID) > 128 || strings.ContainsAny(l.ScopeID, "\x00\n\r") {
		return Limit{}, fmt.Errorf("%w: scopeId names the agent or team", ErrBadRequest)
	}
	if l.Runtime != "" && !plainWord(strings.ReplaceAll(l.Runtime, "-", "_")) {
		return Limit{}, fmt.Errorf("%w: unknown runtime", ErrBadRequest)
	}
	if !plainWord(l.Window) {
		return Limit{}, fmt.Errorf("%w: window is a name such as five_hour or seven_day", ErrBadRequest)
	}
	if math.IsNaN(l.MaxPercent) || l.MaxPercent <= 0 || l.MaxPercent > 100 {
		return Limit{}, fmt.Errorf("%w: maxPercent is more than 0 and at most 100", ErrBadRequest)
	}
	l.CreatedAt = s.opts.Now().UnixMilli()
	_, err := s.opts.Store.Writer().ExecContext(ctx, `INSERT INTO quota_limits (scope, scope_id, runtime, window, max_percent, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, scope_id, runtime, window) DO UPDATE SET max_percent = excluded.max_percent`,
		l.Scope, l.ScopeID, l.Runtime, l.Window, l.MaxPercent, l.CreatedAt)
	if err != nil {
		return Limit{}, err
	}
	s.publish(Event{Kind: "limit"})
	return l, nil
}

// ErrNotFound is a limit or deferral that does not exist.
var ErrNotFound = errors.New("not found")

// DeleteLimit removes a quota budget.
func (s *Service) DeleteLimit(ctx context.Context, scope, scopeID, runtime, window string) error {
	res, err := s.opts.Store.Writer().ExecContext(ctx, `DELETE FROM quota_limits WHERE scope = ? AND scope_id = ? AND runtime = ? AND window = ?`,
		scope, scopeID, runtime, window)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	s.publish(Event{Kind: "limit"})
	return nil
}

// Limits lists the quota budgets.
func (s *Service) Limits(ctx context.Context) ([]Limit, error) {
	return s.limitsWhere(ctx, "")
}

func (s *Service) limitsWhere(ctx context.Context, where string, args ...any) ([]Limit, error) {
	rows, err := s.opts.Store.Reader().QueryContext(ctx, `SELECT scope, scope_id, runtime, window, max_percent, created_at
		FROM quota_limits `+where+` ORDER BY scope, scope_id, runtime, window`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Limit{}
	for rows.Next() {
		var l Limit
		if err := rows.Scan(&l.Scope, &l.ScopeID, &l.Runtime, &l.Window, &l.MaxPercent, &l.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Ask is work about to be dispatched.
type Ask struct {
	Runtime string
	// Account narrows the windows read to one account (a native agent's
	// provider); "" reads every account of the runtime.
	Account string
	AgentID string
	TeamID  string
}

// Hold is the governor's answer when work must wait.
type Hold struct {
	Runtime string
	Window  Window
	// Until is when the work is tried again (the reset, else 15 minutes).
	Until int64
	// Reason in words: "Claude Code five-hour window at 97 %, resets 14:20".
	Reason string
}

// Check answers nil when work may start on the asked runtime now, else
// the tightest window holding it back.
func (s *Service) Check(ctx context.Context, a Ask) (*Hold, error) {
	threshold := s.Threshold(ctx)
	limits, err := s.limitsWhere(ctx, `WHERE ((scope = 'agent' AND scope_id = ?) OR (scope = 'team' AND scope_id = ?)) AND runtime IN ('', ?)`,
		a.AgentID, a.TeamID, a.Runtime)
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	var best *Hold
	var bestOver float64
	for _, w := range s.windowsOf(a.Runtime, now.UnixMilli()) {
		if (a.Account != "" && w.Account != a.Account && w.Account != "") || w.Reset {
			continue
		}
		limit, budget := threshold, ""
		for _, l := range limits {
			if l.Window == w.Window && l.MaxPercent < limit {
				limit, budget = l.MaxPercent, l.Scope
			}
		}
		var over float64 // how far past its limit, for picking the tightest
		switch {
		case w.Status == "rejected":
			over = math.Inf(1)
		case w.Utilization != nil && *w.Utilization*100 >= limit-1e-9:
			over = *w.Utilization*100 - limit
		default:
			continue
		}
		h := &Hold{Runtime: a.Runtime, Window: w, Until: now.Add(retryUnknown).UnixMilli()}
		if c := w.clearsAt(); c != nil {
			h.Until = *c
		}
		h.Reason = s.reason(w, budget, limit, now)
		if best == nil || over > bestOver || (over == bestOver && h.Until > best.Until) {
			best, bestOver = h, over
		}
	}
	return best, nil
}

// windowsOf are the ledger's windows of one runtime, unsorted.
func (s *Service) windowsOf(runtime string, now int64) []Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Window
	for _, w := range s.rows {
		if w.Runtime == runtime {
			w.Reset = isReset(w, now)
			out = append(out, w)
		}
	}
	return out
}

// reason says why a window holds work back.
func (s *Service) reason(w Window, budget string, limit float64, now time.Time) string {
	var b strings.Builder
	b.WriteString(s.opts.Name(w.Runtime))
	if w.Account != "" && w.Account != w.Runtime {
		b.WriteString(" (" + w.Account + ")")
	}
	b.WriteString(" " + WindowLabel(w.Window) + " window ")
	switch {
	case w.Utilization != nil:
		fmt.Fprintf(&b, "at %s %%", pct(*w.Utilization*100))
		if w.Status == "rejected" {
			b.WriteString(" (rejected)")
		}
	default:
		b.WriteString("rejected")
	}
	if budget != "" && w.Status != "rejected" {
		fmt.Fprintf(&b, ", over the %s's quota budget of %s %%", budget, pct(limit))
	}
	if w.ResetsAt != nil {
		b.WriteString(", resets " + clock(time.UnixMilli(*w.ResetsAt), now))
	} else if c := w.clearsAt(); c != nil {
		b.WriteString(", no reset time reported: clears " + clock(time.UnixMilli(*c), now) + " unless a call succeeds sooner")
	} else {
		b.WriteString(", no reset time reported (trying again in 15 minutes)")
	}
	return b.String()
}

func pct(v float64) string {
	if math.Abs(v-math.Round(v)) < 0.05 {
		return strconv.Itoa(int(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// clock is a reset time as a person reads it: 14:20 today, else with its day.
func clock(t, now time.Time) string {
	t, now = t.In(time.Local), now.In(time.Local)
	switch {
	case t.YearDay() == now.YearDay() && t.Year() == now.Year():
		return t.Format("15:04")
	case t.Sub(now) < 6*24*time.Hour:
		return t.Format("Mon 15:04")
	}
	return t.Format("Jan 2 15:04")
}

// WindowLabel is a window's name in words.
func WindowLabel(w string) string {
	switch w {
	case "five_hour":
		return "five-hour"
	case "seven_day":
		return "weekly"
	case "seven_day_opus":
		return "weekly Opus"
	case "seven_day_sonnet":
		return "weekly Sonnet"
	}
	return strings.ReplaceAll(w, "_", " ")
}

// Tightest is the window closest to holding work back — rejected first,
// then the highest utilization — in words for the tray ("Claude Code
// five-hour window at 97 %, resets 14:20"); "" when no window is known or
// every one has reset.
func (s *Service) Tightest() string {
	now := s.opts.Now()
	var best *Window
	score := func(w Window) float64 {
		if w.Status == "rejected" {
			return 1e9
		}
		if w.Utilization == nil {
			return -1
		}
		return *w.Utilization
	}
	for _, w := range s.Windows() {
		if w.Reset {
			continue
		}
		if best == nil || score(w) > score(*best) {
			w := w
			best = &w
		}
	}
	if best == nil || score(*best) < 0 {
		return ""
	}
	return s.reason(*best, "", 0, now)
}
