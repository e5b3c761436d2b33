package backend

import (
	"context"

	"github.com/clawboo/desktop/backend/notices"
)

// Phone notices (issue 30, backend/notices): approvals and finished tasks
// pushed to the ntfy topic a person saved, with a link to the paired page
// while the phones' listener is on. None on a host's server, which only a
// desktop reaches: the desktop's own notices cover its runs there.

// openNotices makes the notices' service over the approvals queue and the
// board's events and starts it; Close stops it.
func (b *Backend) openNotices(opts Options) {
	if opts.HostServer {
		return
	}
	o := notices.Options{
		Settings: b.Store, Board: b.boardEvents, Names: noticeNames{b: b},
		Address: b.phone.address, Log: b.log.With("part", "notices"),
	}
	if b.Approvals != nil {
		o.Approvals = b.Approvals
	}
	b.notices = notices.New(o)
	// The backend's loops live until Close, not as long as New's ctx.
	b.notices.Start(context.Background())
}

// closeNotices stops the notices (an in-flight POST is cut short).
func (b *Backend) closeNotices() {
	if b.notices != nil {
		b.notices.Close()
	}
}

// address is the listener's host:port, "" while it is off.
func (p *phoneLAN) address() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// noticeNames finds the names a notice may carry.
type noticeNames struct{ b *Backend }

func (n noticeNames) AgentName(ctx context.Context, id string) string { return n.b.agentName(ctx, id) }

func (n noticeNames) TeamName(ctx context.Context, id string) string {
	if n.b.Teams == nil {
		return ""
	}
	t, err := n.b.Teams.Get(ctx, id)
	if err != nil {
		return ""
	}
	return t.Name
}
