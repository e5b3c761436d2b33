package routines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata" // timezones resolve on machines without a zoneinfo database (Windows)

	cron "github.com/netresearch/go-cron"
)

// OncePrefix starts a one-time spec: once@<RFC 3339 time>.
const OncePrefix = "once@"

// parser reads five POSIX cron fields (when both day fields are
// restricted, either matching is enough, as cron(8) does) and the @names.
var parser = cron.MustNewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor | cron.DowOrDom)

// names are the @names a spec may be (the library also knows @every, which
// is not a cron spec and would let a schedule fire every second).
var names = map[string]bool{"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true, "@daily": true, "@midnight": true, "@hourly": true}

// Spec is a parsed schedule spec in its timezone.
type Spec struct {
	raw   string
	loc   *time.Location
	sched cron.Schedule
	once  time.Time // set for once@
}

// ErrSpec wraps every reason a spec or timezone is refused.
var ErrSpec = errors.New("invalid schedule")

func specErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, a...))
}

// MachineZone is the machine's IANA timezone name: $TZ when it names one,
// else the zone /etc/localtime links to, else "" (unknown; times are then
// the process's local time).
func MachineZone() string {
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" {
		if _, err := time.LoadLocation(tz); err == nil && tz != "Local" {
			return tz
		}
	}
	if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			if _, err := time.LoadLocation(name); err == nil {
				return name
			}
		}
	}
	return ""
}

// LoadZone resolves a timezone name; "" is the machine's.
func LoadZone(tz string) (*time.Location, error) {
	tz = strings.TrimSpace(tz)
	if tz == "" || tz == "Local" {
		return time.Local, nil
	}
	if len(tz) > 64 {
		return nil, specErr("timezone name is longer than 64 characters")
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, specErr("unknown timezone %q (use an IANA name such as Europe/Berlin)", tz)
	}
	return loc, nil
}

// ParseSpec reads a spec in a timezone ("" is the machine's).
func ParseSpec(raw, tz string) (Spec, error) {
	raw = strings.Join(strings.Fields(raw), " ")
	loc, err := LoadZone(tz)
	if err != nil {
		return Spec{}, err
	}
	switch {
	case raw == "":
		return Spec{}, specErr("the spec is empty: give five cron fields (minute hour day month weekday), an @name such as @daily, or once@<time>")
	case len(raw) > 200:
		return Spec{}, specErr("the spec is longer than 200 characters")
	case strings.HasPrefix(strings.ToLower(raw), OncePrefix):
		at, err := time.Parse(time.RFC3339, strings.TrimSpace(raw[len(OncePrefix):]))
		if err != nil {
			return Spec{}, specErr("once@ needs an RFC 3339 time such as once@2026-12-24T09:00:00+01:00")
		}
		return Spec{raw: OncePrefix + at.Format(time.RFC3339), loc: loc, once: at}, nil
	case strings.HasPrefix(raw, "@"):
		if !names[strings.ToLower(raw)] {
			return Spec{}, specErr("unknown name %q: use @hourly, @daily, @midnight, @weekly, @monthly or @yearly", raw)
		}
		raw = strings.ToLower(raw)
	case strings.Contains(raw, "="):
		return Spec{}, specErr("put the timezone in its own field, not in the spec")
	case len(strings.Fields(raw)) != 5:
		return Spec{}, specErr("a cron spec has five fields (minute hour day-of-month month day-of-week); %q has %d", raw, len(strings.Fields(raw)))
	}
	s, err := parser.Parse(raw)
	if err != nil {
		return Spec{}, specErr("%v", err)
	}
	return Spec{raw: raw, loc: loc, sched: s}, nil
}

// String is the spec as stored (whitespace normalised, once@ in RFC 3339).
func (s Spec) String() string { return s.raw }

// Once says whether the spec fires one time only.
func (s Spec) Once() bool { return !s.once.IsZero() }

// Location is the spec's timezone.
func (s Spec) Location() *time.Location { return s.loc }

// Next is the first fire time strictly after t; false when there is none
// (a once@ time at or before t, or a spec that never matches).
func (s Spec) Next(t time.Time) (time.Time, bool) {
	if s.Once() {
		if s.once.After(t) {
			return s.once, true
		}
		return time.Time{}, false
	}
	if s.sched == nil {
		return time.Time{}, false
	}
	n := s.sched.Next(t.In(s.loc))
	return n, !n.IsZero()
}

// NextN is up to n fire times after t.
func (s Spec) NextN(t time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	for len(out) < n {
		next, ok := s.Next(t)
		if !ok {
			break
		}
		out = append(out, next)
		t = next
	}
	return out
}

// countBetween is how many fire times fall in (after, until], at most max.
func (s Spec) countBetween(after, until time.Time, max int) int {
	n := 0
	for n < max {
		next, ok := s.Next(after)
		if !ok || next.After(until) {
			break
		}
		n++
		after = next
	}
	return n
}
