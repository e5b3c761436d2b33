package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/approval"
)

// askHome puts to a person here what the host's run asks one (a native or
// mock command, an ACP or OpenClaw permission): each request the host's
// queue holds for the run becomes one in this computer's queue — the
// page, the tray, the native popup — naming the host, and the answer given
// here answers it there. The first answer wins, as everywhere: one given
// on the host itself, or the host's expiry, withdraws the copy here. It
// watches until ctx ends (the run's end), across dropped links.
func (r *run) askHome(ctx context.Context) {
	if r.a.p.o.Approvals == nil {
		return
	}
	m := &mirrors{asked: map[string]context.CancelFunc{}}
	defer m.cancelAll()
	for wait := 250 * time.Millisecond; ctx.Err() == nil; wait = min(wait*2, 5*time.Second) {
		if err := r.watchApprovals(ctx, m); err == nil {
			wait = 250 * time.Millisecond // it was flowing
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
}

// mirrors are the host's requests asked here, by the host's id.
type mirrors struct {
	mu    sync.Mutex
	asked map[string]context.CancelFunc
}

// take reserves id; false when it is asked already.
func (m *mirrors) take(id string, cancel context.CancelFunc) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.asked[id]; ok {
		return false
	}
	m.asked[id] = cancel
	return true
}

// withdraw ends the copy of id here (it was answered or expired there).
func (m *mirrors) withdraw(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.asked[id]; c != nil {
		c()
		m.asked[id] = nil // kept: a late "requested" does not ask again
	}
}

func (m *mirrors) cancelAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.asked {
		if c != nil {
			c()
		}
	}
}

// watchApprovals follows the host's approval events for the run: it
// subscribes first, then takes what is already pending, so no request
// falls between. It returns when the stream ends; nil when it had opened.
func (r *run) watchApprovals(ctx context.Context, m *mirrors) error {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://localhost/api/events", nil)
	if err != nil {
		return err
	}
	res, err := r.do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the host answered %s for its events", res.Status)
	}
	var pending struct {
		Approvals []approval.Request `json:"approvals"`
	}
	if err := r.call(ctx, "GET", "/api/approvals", nil, &pending); err != nil {
		return err
	}
	for _, p := range pending.Approvals {
		r.mirror(ctx, m, p)
	}
	_ = readSSE(res.Body, func(name, data string) error {
		if name != "approval" {
			return nil
		}
		var ev approval.Event
		if json.Unmarshal([]byte(data), &ev) != nil {
			return nil
		}
		switch ev.Kind {
		case "requested":
			r.mirror(ctx, m, ev.Approval)
		case "resolved":
			m.withdraw(ev.Approval.ID)
		}
		return nil
	})
	return nil
}

// mirror asks a person here the host's pending request p of this run, and
// answers the host with what they said.
func (r *run) mirror(ctx context.Context, m *mirrors, p approval.Request) {
	r.mu.Lock()
	hostRun, hostName := r.hostRun, r.conn.Host.Name
	r.mu.Unlock()
	if p.RunID != hostRun || p.Status != approval.Pending || p.ID == "" {
		return
	}
	ttl := min(time.Until(time.UnixMilli(p.ExpiresAt)), approval.DefaultTTL)
	if ttl <= 0 {
		return
	}
	actx, cancel := context.WithCancel(ctx)
	if !m.take(p.ID, cancel) {
		cancel()
		return
	}
	task, _ := strings.CutPrefix(r.req.SessionKey, "task:")
	if task == r.req.SessionKey {
		task = ""
	}
	folder := p.Folder
	if folder != "" {
		folder = hostName + ": " + folder
	}
	here := approval.Request{
		Kind: p.Kind, Title: p.Title + " on " + hostName, Tool: p.Tool, Command: p.Command, Args: p.Args,
		Folder: folder, AgentID: r.req.AgentID, TeamID: r.req.TeamID, TaskID: task, RunID: string(r.id),
		Reason: p.Reason, Risk: p.Risk, Always: p.Always,
	}
	go func() {
		defer cancel()
		got, err := r.a.p.o.Approvals.Ask(actx, here, ttl)
		if err != nil || (got.Status != approval.Approved && got.Status != approval.Denied) {
			return // withdrawn or expired: the host's own expiry says no there
		}
		decision := approval.Deny
		if got.Status == approval.Approved {
			decision = approval.Approve
			if got.Scope == approval.ScopeSession && p.Always {
				decision = approval.AllowAlways
			}
		}
		r.answerHost(ctx, hostName, p.ID, decision, got.Note)
	}()
}

// answerHost gives the host's request id the answer given here, trying
// again while the link is down, until the run ends. An answer the host
// had already (given there, or expired) is the end of it.
func (r *run) answerHost(ctx context.Context, hostName, id string, d approval.Decision, note string) {
	path := "/api/approvals/" + url.PathEscape(id) + "/resolve"
	for wait := 250 * time.Millisecond; ; wait = min(wait*2, 5*time.Second) {
		err := r.call(ctx, "POST", path, map[string]any{"decision": string(d), "note": note}, nil)
		var he *hostError
		if err == nil || errors.As(err, &he) {
			if err != nil {
				r.a.p.o.Log.Info("the host did not take an answer given here", "host", hostName, "run", r.id, "err", err)
			}
			return
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
	}
}

// readSSE calls each for every event of a Server-Sent Events stream (its
// name, "message" when unnamed, and its data lines joined) until the
// stream ends or each fails; a line is at most maxEventLine bytes.
func readSSE(body io.Reader, each func(name, data string) error) error {
	sc := newLineScanner(body)
	name := ""
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if line != "" {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.WriteString(strings.TrimPrefix(d, " "))
			} else if n, ok := strings.CutPrefix(line, "event:"); ok {
				name = strings.TrimSpace(n)
			}
			continue // id: and comments (pings) add nothing the data lacks
		}
		if data.Len() > 0 {
			if name == "" {
				name = "message"
			}
			if err := each(name, data.String()); err != nil {
				return err
			}
		}
		name = ""
		data.Reset()
	}
	return sc.Err()
}
