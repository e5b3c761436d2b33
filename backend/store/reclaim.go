package store

import (
	"context"
	"fmt"
)

// Giving freed pages back to the disk. Compaction (and any large delete)
// leaves free pages inside the file: SQLite reuses them, so the file stops
// growing, but it does not shrink. A database this build creates uses
// auto_vacuum=INCREMENTAL (set before its first table, see dsn), so
// Reclaim can hand free pages back in small steps without the whole-file
// copy (and twice the disk) a VACUUM needs. A database made by an older
// build keeps auto_vacuum=NONE, where Reclaim does nothing.

// reclaimStep is how many pages one step frees: a few MiB, so the writer
// is held only briefly between steps.
const reclaimStep = 1024

// Reclaim returns up to maxPages free pages (0 = all) to the file system,
// reclaimStep at a time on the writer connection, and answers how many
// bytes the file shrank by.
func (s *Store) Reclaim(ctx context.Context, maxPages int) (int64, error) {
	var mode int
	if err := s.w.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return 0, fmt.Errorf("reclaim: %w", err)
	}
	if mode != 2 { // not INCREMENTAL: an older database
		return 0, nil
	}
	var pageSize, before int64
	if err := s.w.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		return 0, fmt.Errorf("reclaim: %w", err)
	}
	if err := s.w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&before); err != nil {
		return 0, fmt.Errorf("reclaim: %w", err)
	}
	done, last := 0, -1
	for maxPages == 0 || done < maxPages {
		var free int
		if err := s.w.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
			return 0, fmt.Errorf("reclaim: %w", err)
		}
		if free == 0 || free == last { // nothing left, or a step freed nothing
			break
		}
		last = free
		n := min(free, reclaimStep)
		if maxPages > 0 {
			n = min(n, maxPages-done)
		}
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, n)); err != nil {
			return 0, fmt.Errorf("reclaim: %w", err)
		}
		done += n
	}
	var after int64
	if err := s.w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&after); err != nil {
		return 0, fmt.Errorf("reclaim: %w", err)
	}
	return (before - after) * pageSize, nil
}
