package store

import (
	"errors"
	"strings"
	"syscall"

	"modernc.org/sqlite"
)

// sqliteFull is SQLITE_FULL: the database or the disk under it has no room
// (a full filesystem, or a page cap). Extended codes keep it in the low byte.
const sqliteFull = 13

// IsDiskFull reports whether err says the disk (or the database's page
// cap) is full, so callers can answer "the disk is full" instead of a
// generic failure, and stop retrying what cannot succeed until space is
// freed.
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqliteFull {
		return true
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	// Errors that crossed a string boundary (a wrapped driver message).
	return strings.Contains(err.Error(), "database or disk is full")
}
