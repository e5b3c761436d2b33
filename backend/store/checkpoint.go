package store

import (
	"context"
	"database/sql"
	"time"
)

// Checkpointing runs beside the writer, not inside it. SQLite's automatic
// checkpoint runs in whichever commit crosses the threshold, so that one
// commit pays for copying the WAL into the database and two fsyncs
// (milliseconds here, against a fraction of one for a normal commit). The
// writer therefore has automatic checkpoints off, and this loop checkpoints
// from its own connection, PASSIVE (never blocking the writer or readers).
// If readers keep a PASSIVE checkpoint from finishing while the WAL grows
// past walHardLimit, a RESTART checkpoint waits for them, so the WAL stays
// bounded.
const (
	checkpointEvery = 250 * time.Millisecond
	walHardLimit    = 16384 // pages (64 MiB at the default page size)
)

func (s *Store) startCheckpointer(path string) error {
	c, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return err
	}
	c.SetMaxOpenConns(1)
	s.ckpt = c
	s.ckptStop = make(chan struct{})
	s.ckptDone = make(chan struct{})
	go s.checkpointLoop()
	return nil
}

func (s *Store) checkpointLoop() {
	defer close(s.ckptDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ckptStop:
			return
		case <-t.C:
			s.checkpoint(context.Background())
		}
	}
}

// checkpoint copies committed WAL frames into the database file and reports
// how many frames the WAL still holds after it.
func (s *Store) checkpoint(ctx context.Context) (walFrames int) {
	var busy, log, done int
	if err := s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
		return -1
	}
	if log > walHardLimit && done < log {
		_ = s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &log, &done)
	}
	return log - done
}

func (s *Store) stopCheckpointer() {
	if s.ckpt == nil {
		return
	}
	close(s.ckptStop)
	<-s.ckptDone
	_ = s.ckpt.Close()
}
