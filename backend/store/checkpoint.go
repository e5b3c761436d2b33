package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
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
// bounded. A WAL file keeps its largest size even once every frame is
// copied back, so after bulk writes (a flood, a compaction) left it over
// walTruncateAbove the loop truncates it to nothing.
const (
	checkpointEvery = 250 * time.Millisecond
	walHardLimit    = 16384 // pages (64 MiB at the default page size)
)

// walTruncateAbove is in bytes (a variable so tests can make it small).
var walTruncateAbove int64 = 16 << 20

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
	if done == log {
		if fi, err := os.Stat(s.path + "-wal"); err == nil && fi.Size() > walTruncateAbove {
			_ = s.TruncateWAL(ctx)
		}
	}
	return log - done
}

// TruncateWAL copies every committed frame into the database and truncates
// the WAL file to zero bytes, for after bulk writes. It waits (up to the
// busy timeout) for the writer and for readers still using the WAL.
func (s *Store) TruncateWAL(ctx context.Context) error {
	var busy, log, done int
	if err := s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done); err != nil {
		return fmt.Errorf("truncate wal: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("truncate wal: the database was busy")
	}
	return nil
}

func (s *Store) stopCheckpointer() {
	if s.ckpt == nil {
		return
	}
	close(s.ckptStop)
	<-s.ckptDone
	_ = s.ckpt.Close()
}
