package routines

import (
	"fmt"
	"strconv"
	"strings"
)

// Describe says a parsed spec in words ("At 09:00, Monday to Friday").
// A field shape it has no words for is quoted as written, so the words
// never claim more than the spec says.
func Describe(s Spec) string {
	if s.Once() {
		return "Once, at " + s.once.In(s.loc).Format("Mon 2 Jan 2006 15:04 MST")
	}
	switch s.raw {
	case "@hourly":
		return "Every hour, on the hour"
	case "@daily", "@midnight":
		return "Every day at 00:00"
	case "@weekly":
		return "Every Sunday at 00:00"
	case "@monthly":
		return "At 00:00 on day 1 of every month"
	case "@yearly", "@annually":
		return "At 00:00 on 1 January, every year"
	}
	f := strings.Fields(s.raw)
	if len(f) != 5 {
		return s.raw
	}
	return joinWords(when(f[0], f[1]), days(f[2], f[4]), months(f[3]))
}

func joinWords(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

var monthNames = []string{"", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

var dayNames = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

func num(tok string, names []string) (int, bool) {
	if n, err := strconv.Atoi(tok); err == nil {
		return n, true
	}
	for i, name := range names {
		if name != "" && strings.EqualFold(tok, name[:3]) {
			return i, true
		}
	}
	return 0, false
}

// list names a field's values: "Monday to Friday", "1 and 15", "every 2nd".
// ok is false for a shape it cannot say.
func list(field string, names []string, label func(int) string) (string, bool) {
	var parts []string
	for _, item := range strings.Split(field, ",") {
		if a, b, found := strings.Cut(item, "-"); found && !strings.Contains(item, "/") {
			x, ok1 := num(a, names)
			y, ok2 := num(b, names)
			if !ok1 || !ok2 {
				return "", false
			}
			parts = append(parts, label(x)+" to "+label(y))
			continue
		}
		n, ok := num(item, names)
		if !ok {
			return "", false
		}
		parts = append(parts, label(n))
	}
	return andList(parts), true
}

// andList is "a", "a and b", "a, b and c".
func andList(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func step(field string) (int, bool) {
	rest, ok := strings.CutPrefix(field, "*/")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

func when(min, hour string) string {
	mi, minOK := strconv.Atoi(min)
	if n, ok := step(min); ok && hour == "*" {
		return fmt.Sprintf("Every %d minutes", n)
	}
	if min == "*" && hour == "*" {
		return "Every minute"
	}
	if minOK == nil && hour == "*" {
		return fmt.Sprintf("At minute %d of every hour", mi)
	}
	if n, ok := step(hour); ok && minOK == nil {
		return fmt.Sprintf("At minute %d of every %d hours", mi, n)
	}
	if minOK == nil && !strings.ContainsAny(hour, "/-*") {
		var times []string
		for _, h := range strings.Split(hour, ",") {
			hh, err := strconv.Atoi(h)
			if err != nil {
				return fmt.Sprintf("At minute %s, hour %s", min, hour)
			}
			times = append(times, fmt.Sprintf("%02d:%02d", hh, mi))
		}
		return "At " + andList(times)
	}
	return fmt.Sprintf("At minute %s, hour %s", min, hour)
}

func days(dom, dow string) string {
	dayLabel := func(n int) string { return dayNames[n%8] }
	domLabel := strconv.Itoa
	var d, w string
	if dom != "*" && dom != "?" {
		if s, ok := list(dom, nil, domLabel); ok {
			d = "on day " + s + " of the month"
		} else {
			d = "on days " + dom + " of the month"
		}
	}
	if dow != "*" && dow != "?" {
		if s, ok := list(dow, dayNames, dayLabel); ok {
			w = s
		} else {
			w = "on weekdays " + dow
		}
		if dow == "1-5" || strings.EqualFold(dow, "mon-fri") {
			w = "Monday to Friday"
		}
	}
	switch {
	case d != "" && w != "":
		return d + " or on " + w
	case d != "":
		return d
	case w != "":
		return w
	}
	return "every day"
}

func months(month string) string {
	if month == "*" {
		return ""
	}
	if s, ok := list(month, monthNames, func(n int) string {
		if n >= 1 && n <= 12 {
			return monthNames[n]
		}
		return strconv.Itoa(n)
	}); ok {
		return "in " + s
	}
	return "in months " + month
}
