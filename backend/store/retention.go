package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// Retention is how long finished runs keep their text deltas one row each
// before compaction merges them (see compact.go): a run is compacted once
// it ended more than CompactAfter ago, or as soon as it ends when its
// deltas are over CompactOverBytes. Zero turns a rule off.
type Retention struct {
	CompactAfter     time.Duration
	CompactOverBytes int64
}

// DefaultRetention keeps a day of full detail, and never more than a
// mebibyte of deltas for any one finished run.
var DefaultRetention = Retention{CompactAfter: 24 * time.Hour, CompactOverBytes: 1 << 20}

// Settings keys of the retention budgets (decimal integers).
const (
	SettingCompactAfterHours = "retention.compact_after_hours"
	SettingCompactOverBytes  = "retention.compact_over_bytes"
)

// Retention reads the retention budgets; a missing or unreadable value
// falls back to its default.
func (s *Store) Retention(ctx context.Context) (Retention, error) {
	r := DefaultRetention
	read := func(key string) (int64, bool, error) {
		v, err := s.GetSetting(ctx, key)
		if errors.Is(err, ErrNotFound) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		n, perr := strconv.ParseInt(v, 10, 64)
		return n, perr == nil && n >= 0, nil
	}
	h, ok, err := read(SettingCompactAfterHours)
	if err != nil {
		return r, err
	}
	if ok {
		r.CompactAfter = time.Duration(min(h, 1<<20)) * time.Hour
	}
	b, ok, err := read(SettingCompactOverBytes)
	if err != nil {
		return r, err
	}
	if ok {
		r.CompactOverBytes = b
	}
	return r, nil
}

// SetRetention stores the retention budgets (whole hours).
func (s *Store) SetRetention(ctx context.Context, r Retention, now int64) error {
	if r.CompactAfter < 0 || r.CompactOverBytes < 0 {
		return errors.New("retention budgets cannot be negative")
	}
	if err := s.PutSetting(ctx, SettingCompactAfterHours, strconv.FormatInt(int64(r.CompactAfter/time.Hour), 10), now); err != nil {
		return err
	}
	return s.PutSetting(ctx, SettingCompactOverBytes, strconv.FormatInt(r.CompactOverBytes, 10), now)
}

// CompactOld compacts up to maxRuns finished runs that ended at or before
// endedBefore (Unix ms) and were not compacted yet, oldest end first, and
// reports whether more may be waiting. A run still live, or one that
// ended later, holds back nothing: it is simply not among them yet.
func (s *Store) CompactOld(ctx context.Context, endedBefore int64, maxRuns int) (CompactStats, bool, error) {
	var st CompactStats
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM runs WHERE compacted_at IS NULL AND ended_at IS NOT NULL
		AND ended_at <= ? AND status NOT IN (?, ?) ORDER BY ended_at LIMIT ?`, endedBefore, RunStarting, RunRunning, maxRuns)
	if err != nil {
		return st, false, fmt.Errorf("compact old runs: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return st, false, fmt.Errorf("compact old runs: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, false, fmt.Errorf("compact old runs: %w", err)
	}
	for _, id := range ids {
		one, err := s.CompactRun(ctx, id)
		st.Add(one)
		if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrRunLive) {
			return st, false, err
		}
	}
	return st, len(ids) == maxRuns, nil
}

// Sizes is the disk the database takes.
type Sizes struct {
	DatabaseBytes int64 // the database file
	WALBytes      int64 // its write-ahead log
	// FreeBytes are pages inside the database file that hold nothing (left
	// by compaction or deletes) and are reused before the file grows.
	FreeBytes int64
}

// Sizes reports the database's files and its free pages.
func (s *Store) Sizes(ctx context.Context) (Sizes, error) {
	var z Sizes
	for _, f := range []struct {
		path string
		into *int64
	}{{s.path, &z.DatabaseBytes}, {s.path + "-wal", &z.WALBytes}} {
		fi, err := os.Stat(f.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return z, fmt.Errorf("database size: %w", err)
		}
		if err == nil {
			*f.into = fi.Size()
		}
	}
	var free, page int64
	if err := s.r.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return z, fmt.Errorf("database size: %w", err)
	}
	if err := s.r.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&page); err != nil {
		return z, fmt.Errorf("database size: %w", err)
	}
	z.FreeBytes = free * page
	return z, nil
}
