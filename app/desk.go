//go:build desktop

package app

import (
	"context"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/approval"
)

// desk is everything the desktop shows outside the page: approval popups,
// notifications and the tray. Each part is optional: a machine without a
// session bus gets popups only; one without a tray host gets no tray, and
// closing the window then quits as usual.
type desk struct {
	s      *shell
	b      *backend.Backend
	att    *attention
	notify *dbusNotifier
	// routines notifies failed routine fires (nil without notifications).
	routines *routineNotices
	quotaTip *quotaTip // the tray tooltip's usage window
	tray     *tray
}

// startDesk runs once the window exists (OnStartup: GTK is initialised and
// s.ctx is set).
func (s *shell) startDesk(b *backend.Backend, icon []byte) {
	d := &desk{s: s, b: b}
	log := s.log.With("part", "desk")
	var notify notifier
	if n, err := newDBusNotifier(os.Getenv, log); err != nil {
		log.Info("desktop notifications disabled", "err", err)
	} else {
		d.notify, notify = n, n
	}
	t, err := startTray(os.Getenv, log, icon, trayActions{
		OpenWindow:    d.openWindow,
		OpenApprovals: d.openApprovals,
		PauseAll:      d.pauseAll,
		Quit:          s.quit,
	})
	var status func(int, int, int)
	switch {
	case err != nil:
		log.Info("tray disabled", "err", err)
	case !t.Hosted():
		d.tray, status = t, t.SetStatus
		log.Info("tray item registered, but no tray host is running: closing the window quits")
	default:
		d.tray, status = t, t.SetStatus
		log.Info("tray shown")
	}
	if d.tray != nil && b.Quota != nil {
		d.quotaTip = startQuotaTip(b.QuotaEvents(), b.Quota.Tightest, d.tray.SetQuota)
	}
	if b.Approvals == nil || b.Supervisor == nil {
		log.Warn("no approvals queue: popups and notifications are off")
		s.desk.Store(d)
		return
	}
	d.att = newAttention(attentionOptions{
		Approvals: b.Approvals, Runs: b.Supervisor.Updates, Notify: notify, Status: status, Log: log,
		Resolve: func(ctx context.Context, id string, d approval.Decision) error {
			_, err := b.Approvals.Resolve(ctx, id, d, "desktop popup", "")
			return err
		},
		AgentName: func(ctx context.Context, id string) string {
			if a, err := b.Agents.Get(ctx, id); err == nil {
				return a.Name
			}
			return ""
		},
		TaskTitle: func(ctx context.Context, id string) string {
			if b.Board == nil {
				return ""
			}
			if t, err := b.Board.Get(ctx, id); err == nil {
				return t.Title
			}
			return ""
		},
	})
	if d.tray != nil && b.Hosts != nil {
		d.att.o.HostRuns = func(per map[string]int) {
			d.tray.SetHosts(hostsLine(per, func(id string) string {
				h, err := b.Hosts.Get(context.Background(), id)
				if err != nil {
					return ""
				}
				return h.Name
			}))
		}
	}
	d.att.o.Popups = newPopupUI(d.att.answer)
	d.att.start(s.ctx)
	if notify != nil && b.Routines != nil {
		d.routines = startRoutineNotices(b.Routines.Events, notify)
	}
	s.desk.Store(d)
}

// stopDesk withdraws popups and stops notifying; the tray stays until
// stopTray, after the backend (and its keychain use) has shut down.
func (d *desk) stopDesk() {
	if d == nil {
		return
	}
	if d.att != nil {
		d.att.close()
	}
	if d.routines != nil {
		d.routines.close()
	}
	d.quotaTip.close()
	if d.notify != nil {
		d.notify.shutdown()
	}
}

func (d *desk) stopTray() {
	if d != nil && d.tray != nil {
		d.tray.stop()
	}
}

// keepInTray reports whether closing the window should hide it instead of
// quitting: only when someone can see the tray to bring it back, and runs
// are still going.
func (d *desk) keepInTray() bool {
	return d != nil && d.tray != nil && d.tray.Hosted() && d.b.Supervisor.LiveCount() > 0
}

func (d *desk) openWindow() {
	runtime.WindowShow(d.s.ctx)
	runtime.WindowUnminimise(d.s.ctx)
}

func (d *desk) openApprovals() {
	d.openWindow()
	runtime.WindowExecJS(d.s.ctx, `location.hash = "#/approvals"`)
}

func (d *desk) pauseAll() {
	n := d.b.Supervisor.AbortAll()
	d.s.log.Info("paused all runs from the tray", "runs", n)
	if d.notify != nil {
		d.notify.Notify("pause", "Clawboo: runs paused", fmt.Sprintf("Stopped %s; their tasks keep their work.", plural(n, "run")))
	}
}

// beforeClose decides what closing the window does (Wails' OnBeforeClose,
// also called for runtime.Quit): a quit asked for (tray, signal) quits;
// otherwise, with runs live and a visible tray, the window hides and the
// app stays in the tray.
func (s *shell) beforeClose(ctx context.Context) (prevent bool) {
	d := s.desk.Load()
	if s.quitting.Load() || !d.keepInTray() {
		return false
	}
	runtime.WindowHide(ctx)
	n := d.b.Supervisor.LiveCount()
	s.log.Info("window closed with runs live; staying in the tray", "runs", n)
	if d.notify != nil {
		d.notify.Notify("tray", "Clawboo is still running",
			fmt.Sprintf("%s still going; open or quit Clawboo from the tray.", plural(n, "run")))
	}
	return true
}

// quit quits for real (the tray's Quit).
func (s *shell) quit() {
	s.quitting.Store(true)
	runtime.Quit(s.ctx)
}
