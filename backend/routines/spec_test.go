package routines

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseSpecRefusesWithReasons(t *testing.T) {
	for _, c := range []struct{ spec, tz, want string }{
		{"", "", "empty"},
		{"* * *", "", "five fields"},
		{"61 * * * *", "", "61"},
		{"@every 1s", "", "unknown name"},
		{"@sometimes", "", "unknown name"},
		{"CRON_TZ=UTC 0 9 * * *", "", "own field"},
		{"once@tomorrow", "", "RFC 3339"},
		{"0 9 * * *", "Mars/Olympus", "unknown timezone"},
		{strings.Repeat("1 ", 150), "", "longer than 200"},
	} {
		_, err := ParseSpec(c.spec, c.tz)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSpec(%q, %q) = %v, want an ErrSpec saying %q", c.spec, c.tz, err, c.want)
		}
	}
}

func TestNextInTimezoneAcrossDST(t *testing.T) {
	s, err := ParseSpec("0 9 * * 1-5", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	berlin := s.Location()
	// Friday 27 March 2026 10:00 Berlin (CET): the next is Monday 30 March
	// 09:00, which is CEST (the clocks moved on Sunday the 29th).
	from := time.Date(2026, 3, 27, 10, 0, 0, 0, berlin)
	got := s.NextN(from, 2)
	want := []time.Time{time.Date(2026, 3, 30, 9, 0, 0, 0, berlin), time.Date(2026, 3, 31, 9, 0, 0, 0, berlin)}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("next %d = %v, want %v", i, got[i], want[i])
		}
	}
	if _, off := got[0].Zone(); off != 2*3600 {
		t.Fatalf("Monday's 09:00 should be CEST (+2h), got offset %d", off)
	}
}

func TestDomOrDowIsPOSIX(t *testing.T) {
	// "On the 1st, or on any Monday" (cron(8)); the fork's default would be AND.
	s, err := ParseSpec("0 0 1 * 1", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) // a Wednesday
	next, _ := s.Next(from)
	if want := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC); !next.Equal(want) {
		t.Fatalf("next = %v, want the Monday %v", next, want)
	}
}

func TestOnceFiresOnceThenNever(t *testing.T) {
	s, err := ParseSpec("once@2026-12-24T09:00:00+01:00", "")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 24, 8, 0, 0, 0, time.UTC)
	before := at.Add(-time.Hour)
	if n, ok := s.Next(before); !ok || !n.Equal(at) {
		t.Fatalf("Next before = %v %v, want %v", n, ok, at)
	}
	if _, ok := s.Next(at); ok {
		t.Fatal("a once@ spec must not fire again at or after its time")
	}
	if got := s.NextN(before, 5); len(got) != 1 {
		t.Fatalf("NextN = %v, want one time", got)
	}
}

func TestDescribe(t *testing.T) {
	for spec, want := range map[string]string{
		"0 9 * * 1-5":    "At 09:00, Monday to Friday",
		"30 2 * * *":     "At 02:30, every day",
		"*/15 * * * *":   "Every 15 minutes, every day",
		"0 9,17 * * mon": "At 09:00 and 17:00, Monday",
		"0 3 1,15 * *":   "At 03:00, on day 1 and 15 of the month",
		"0 0 1 * 1":      "At 00:00, on day 1 of the month or on Monday",
		"0 8 * 1-3 *":    "At 08:00, every day, in January to March",
		"5 * * * *":      "At minute 5 of every hour, every day",
		"@hourly":        "Every hour, on the hour",
		"@weekly":        "Every Sunday at 00:00",
		"0-10/2 * * * *": "At minute 0-10/2, hour *, every day",
	} {
		s, err := ParseSpec(spec, "UTC")
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := Describe(s); got != want {
			t.Errorf("Describe(%q) = %q, want %q", spec, got, want)
		}
	}
	s, _ := ParseSpec("once@2026-12-24T09:00:00+01:00", "Europe/Berlin")
	if got := Describe(s); got != "Once, at Thu 24 Dec 2026 09:00 CET" {
		t.Errorf("once: %q", got)
	}
}

func TestNoTimezoneIsTheMachinesByName(t *testing.T) {
	t.Setenv("TZ", "Asia/Tokyo")
	if got := MachineZone(); got != "Asia/Tokyo" {
		t.Fatalf("MachineZone = %q", got)
	}
	st, _ := newDB(t)
	s := newService(t, st, newFakeClock(t0), newFirer(nil), time.Hour)
	sc, err := s.Create(t.Context(), NewSchedule{AgentID: "bot", Spec: "0 9 * * *", Template: tmpl})
	if err != nil {
		t.Fatal(err)
	}
	// 09:00 in Tokyo is 00:00 UTC: the next after 08:59 UTC on 2 Dec is 3 Dec 00:00 UTC.
	if sc.Timezone != "Asia/Tokyo" || *sc.NextRunAt != time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("%q %v", sc.Timezone, time.UnixMilli(*sc.NextRunAt).UTC())
	}
}
