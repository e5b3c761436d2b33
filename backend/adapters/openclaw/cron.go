package openclaw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The Gateway's own scheduled jobs ("automations", RPC cron.*), read so
// Clawboo can list them beside its routines. Clawboo never writes them;
// CanWriteCron only says whether this connection could.

// CronJob is one Gateway cron job as Clawboo shows it. Every string is
// bounded; times are Unix ms, 0 when unknown.
type CronJob struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	AgentID string `json:"agentId"`
	// Kind is the schedule kind: cron, every, at, on-exit, stream (or
	// whatever a newer Gateway says).
	Kind string `json:"kind"`
	// Spec is the schedule as one string: the cron expression for kind
	// cron, "every 10m", "at 2027-02-01T16:00:00Z", "on-exit <command>",
	// "stream <argv>".
	Spec string `json:"spec"`
	// Timezone is a cron job's IANA zone ("" = the Gateway host's).
	Timezone  string `json:"timezone"`
	Enabled   bool   `json:"enabled"`
	NextRunAt int64  `json:"nextRunAt"`
	LastRunAt int64  `json:"lastRunAt"`
	// LastStatus is the Gateway's word for the last run (ok, error,
	// skipped), "" before the first.
	LastStatus string `json:"lastStatus"`
	LastError  string `json:"lastError"`
	// Description is the job's description, else its payload's message
	// (cut at 500 characters); Message is the payload's message or text.
	Description string `json:"description"`
	Message     string `json:"message"`
}

// Bounds on what a Gateway answer may put in a CronJob.
const (
	maxCronText  = 500 // description, message, error, spec
	maxCronShort = 200 // id, name, agent, timezone, status
	maxCronPages = 50  // 50 × 200 jobs
	cronPageSize = 200 // the Gateway's maximum limit
)

// granted is what a connection's hello-ok allowed.
type granted struct {
	scopes  []string
	methods []string
}

func grantedBy(h hello) granted {
	return granted{scopes: slices.Clone(h.Auth.Scopes), methods: slices.Clone(h.Features.Methods)}
}

// CanWriteCron reports whether the current connection could add or change
// Gateway cron jobs: it is connected, its granted scopes include
// operator.admin and the Gateway serves cron.add. False when not
// connected (it is not knowable then).
func (c *Client) CanWriteCron() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return false
	}
	return slices.Contains(c.granted.scopes, "operator.admin") && slices.Contains(c.granted.methods, "cron.add")
}

// CronJobs lists every Gateway cron job, disabled ones included, reading
// all pages of cron.list. A page that does not advance, too many pages or
// a malformed answer is an error.
func (c *Client) CronJobs(ctx context.Context) ([]CronJob, error) {
	return c.cronJobs(ctx, cronPageSize)
}

func (c *Client) cronJobs(ctx context.Context, pageSize int) ([]CronJob, error) {
	all, seen := []CronJob{}, map[string]struct{}{}
	offset, revision := 0, ""
	for range maxCronPages {
		var raw json.RawMessage
		params := map[string]any{
			"includeDisabled": true, "limit": pageSize, "offset": offset,
			"includeDeliveryPreviews": false,
		}
		if err := c.Request(ctx, "cron.list", params, &raw); err != nil {
			return nil, err
		}
		p, err := parseCronPage(raw)
		if err != nil {
			return nil, err
		}
		if offset > 0 && p.revision != revision {
			// The list changed between pages: start again (within the
			// same page budget) rather than merge two snapshots.
			all, seen, offset, revision = []CronJob{}, map[string]struct{}{}, 0, ""
			continue
		}
		revision = p.revision
		for _, j := range p.jobs {
			if _, dup := seen[j.ID]; !dup {
				seen[j.ID] = struct{}{}
				all = append(all, j)
			}
		}
		if !p.hasMore {
			return all, nil
		}
		if p.nextOffset <= offset {
			return nil, fmt.Errorf("cron.list: the next page offset %d does not advance past %d", p.nextOffset, offset)
		}
		offset = p.nextOffset
	}
	return nil, fmt.Errorf("cron.list: more than %d pages of jobs", maxCronPages)
}

// cronPage is one cron.list answer.
type cronPage struct {
	jobs       []CronJob
	hasMore    bool
	nextOffset int
	revision   string
}

// parseCronJobs reads the jobs of one cron.list answer.
func parseCronJobs(raw json.RawMessage) ([]CronJob, error) {
	p, err := parseCronPage(raw)
	if err != nil {
		return nil, err
	}
	return p.jobs, nil
}

// wireCronPage and wireCronJob are what this client reads of cron.list;
// everything else is ignored.
type wireCronPage struct {
	Jobs             *[]json.RawMessage `json:"jobs"`
	HasMore          bool               `json:"hasMore"`
	NextOffset       *int               `json:"nextOffset"`
	SnapshotRevision string             `json:"snapshotRevision"`
}

type wireCronJob struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	DisplayName      string          `json:"displayName"`
	AgentID          string          `json:"agentId"`
	EffectiveAgentID string          `json:"effectiveAgentId"`
	Description      string          `json:"description"`
	Enabled          *bool           `json:"enabled"`
	Schedule         json.RawMessage `json:"schedule"`
	Payload          struct {
		Kind    string   `json:"kind"`
		Message string   `json:"message"`
		Text    string   `json:"text"`
		Argv    []string `json:"argv"`
	} `json:"payload"`
	NextRunAtMs   int64  `json:"nextRunAtMs"`
	LastRunAtMs   int64  `json:"lastRunAtMs"`
	LastRunStatus string `json:"lastRunStatus"`
	LastRunError  string `json:"lastRunError"`
	State         struct {
		NextRunAtMs   int64  `json:"nextRunAtMs"`
		LastRunAtMs   int64  `json:"lastRunAtMs"`
		LastRunStatus string `json:"lastRunStatus"`
		LastStatus    string `json:"lastStatus"`
		LastError     string `json:"lastError"`
	} `json:"state"`
}

type wireCronSchedule struct {
	Kind    string          `json:"kind"`
	Expr    string          `json:"expr"`
	TZ      string          `json:"tz"`
	EveryMs int64           `json:"everyMs"`
	At      string          `json:"at"`
	Command json.RawMessage `json:"command"` // a string (on-exit) or argv (stream)
}

func parseCronPage(raw json.RawMessage) (cronPage, error) {
	var w wireCronPage
	if err := json.Unmarshal(raw, &w); err != nil {
		return cronPage{}, fmt.Errorf("cron.list: the answer is not a page of jobs: %w", err)
	}
	if w.Jobs == nil {
		return cronPage{}, errors.New("cron.list: the answer has no jobs list")
	}
	p := cronPage{hasMore: w.HasMore, revision: w.SnapshotRevision, jobs: make([]CronJob, 0, len(*w.Jobs))}
	if w.NextOffset != nil {
		p.nextOffset = *w.NextOffset
	}
	if p.hasMore && w.NextOffset == nil {
		return cronPage{}, errors.New("cron.list: the answer says there is more but gives no next offset")
	}
	for i, jr := range *w.Jobs {
		j, err := parseCronJob(jr)
		if err != nil {
			return cronPage{}, fmt.Errorf("cron.list: job %d: %w", i, err)
		}
		p.jobs = append(p.jobs, j)
	}
	return p, nil
}

func parseCronJob(raw json.RawMessage) (CronJob, error) {
	var w wireCronJob
	if err := json.Unmarshal(raw, &w); err != nil {
		return CronJob{}, fmt.Errorf("not a job: %w", err)
	}
	if strings.TrimSpace(w.ID) == "" {
		return CronJob{}, errors.New("it has no id")
	}
	if len(w.Schedule) == 0 || string(w.Schedule) == "null" {
		return CronJob{}, fmt.Errorf("job %s has no schedule", cut(w.ID, maxCronShort))
	}
	var s wireCronSchedule
	if err := json.Unmarshal(w.Schedule, &s); err != nil {
		return CronJob{}, fmt.Errorf("job %s: its schedule is not an object: %w", cut(w.ID, maxCronShort), err)
	}
	spec, err := cronSpec(s)
	if err != nil {
		return CronJob{}, fmt.Errorf("job %s: %w", cut(w.ID, maxCronShort), err)
	}
	j := CronJob{
		ID:         cut(w.ID, maxCronShort),
		Name:       cut(first(w.DisplayName, w.Name), maxCronShort),
		AgentID:    cut(first(w.AgentID, w.EffectiveAgentID), maxCronShort),
		Kind:       cut(s.Kind, maxCronShort),
		Spec:       cut(spec, maxCronText),
		Enabled:    w.Enabled == nil || *w.Enabled,
		NextRunAt:  firstMs(w.NextRunAtMs, w.State.NextRunAtMs),
		LastRunAt:  firstMs(w.LastRunAtMs, w.State.LastRunAtMs),
		LastStatus: cut(first(w.LastRunStatus, w.State.LastRunStatus, w.State.LastStatus), maxCronShort),
		LastError:  cut(first(w.LastRunError, w.State.LastError), maxCronText),
		Message:    cut(first(w.Payload.Message, w.Payload.Text, strings.Join(w.Payload.Argv, " ")), maxCronText),
	}
	if s.Kind == "cron" {
		j.Timezone = cut(s.TZ, maxCronShort)
	}
	j.Description = cut(first(strings.TrimSpace(w.Description), j.Message), maxCronText)
	return j, nil
}

// cronSpec renders a schedule as one string.
func cronSpec(s wireCronSchedule) (string, error) {
	switch s.Kind {
	case "cron":
		if strings.TrimSpace(s.Expr) == "" {
			return "", errors.New("its cron schedule has no expression")
		}
		return strings.TrimSpace(s.Expr), nil
	case "every":
		if s.EveryMs <= 0 {
			return "", errors.New("its interval schedule has no interval")
		}
		return "every " + humanMs(s.EveryMs), nil
	case "at":
		if strings.TrimSpace(s.At) == "" {
			return "", errors.New("its one-time schedule has no time")
		}
		return "at " + strings.TrimSpace(s.At), nil
	case "on-exit", "stream":
		var one string
		var argv []string
		if json.Unmarshal(s.Command, &one) != nil && json.Unmarshal(s.Command, &argv) == nil {
			one = strings.Join(argv, " ")
		}
		return strings.TrimSpace(s.Kind + " " + one), nil
	case "":
		return "", errors.New("its schedule has no kind")
	default:
		return s.Kind, nil // a kind this client does not know: shown by name
	}
}

// humanMs is an interval the way OpenClaw's CLI takes it: 30s, 10m, 1h,
// 1d, or a Go duration when it is not a whole number of one unit.
func humanMs(ms int64) string {
	units := []struct {
		ms   int64
		unit string
	}{{86_400_000, "d"}, {3_600_000, "h"}, {60_000, "m"}, {1000, "s"}}
	for _, u := range units {
		if ms%u.ms == 0 {
			return strconv.FormatInt(ms/u.ms, 10) + u.unit
		}
	}
	return (time.Duration(ms) * time.Millisecond).String()
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstMs(a, b int64) int64 {
	if a > 0 {
		return a
	}
	return max(b, 0)
}

// cut bounds s to n runes (marking the cut with "…"), dropping invalid
// UTF-8 and control characters other than newline and tab.
func cut(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
