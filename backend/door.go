package backend

import (
	"context"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/routines"
)

// openQuota builds the quota ledger before the supervisor, which asks its
// governor at the door (the dispatch door's Gate).
func (b *Backend) openQuota(ctx context.Context, clock func() time.Time) error {
	b.quotaEvents = bus.New[quota.Event](0)
	q, err := quota.New(ctx, quota.Options{
		Store: b.Store, Events: b.quotaEvents, Log: b.log.With("part", "quota"),
		Name: b.door.RuntimeName, Now: clock,
	})
	if err != nil {
		return err
	}
	b.Quota = q
	b.door.Quota = q
	return nil
}

// QuotaEvents carries the ledger's changes (the tray's tooltip follows them).
func (b *Backend) QuotaEvents() *bus.Broker[quota.Event] { return b.quotaEvents }

// startQuota starts the deferral timer (the door resumes what it held).
func (b *Backend) startQuota() {
	ctx, stop := context.WithCancel(context.Background())
	b.stopQuota = stop
	b.loops.Add(1)
	go func() {
		defer b.loops.Done()
		b.door.RunDeferrals(ctx)
	}()
}

// openRoutines builds the routines service, firing through the door; its
// timer starts with the background work.
func (b *Backend) openRoutines() {
	limit := b.Config.RoutineOpenClawTimeout
	if limit <= 0 {
		limit = config.DefaultRoutineOpenClawLimit
	}
	b.door.SetOpenClawTimeout(limit)
	b.Routines = routines.New(routines.Options{
		Store: b.Store, Firer: b.door.Firer(),
		Log: b.log.With("part", "routines"),
	})
}
