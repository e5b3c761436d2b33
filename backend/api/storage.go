package api

import (
	"net/http"
	"time"

	"github.com/clawboo/desktop/backend/store"
)

// storage is GET /api/storage: the disk Clawboo's own data takes, and the
// retention budgets that keep the event log bounded.
type storage struct {
	DatabaseBytes int64 `json:"databaseBytes"`
	WALBytes      int64 `json:"walBytes"`
	// FreeBytes are empty pages inside the database file (left by
	// compaction), reused before the file grows.
	FreeBytes     int64         `json:"freeBytes"`
	WorktreeBytes int64         `json:"worktreeBytes"`
	Retention     retentionBody `json:"retention"`
}

// retentionBody is the retention budgets as the API shows and takes them.
type retentionBody struct {
	CompactAfterHours *int64 `json:"compactAfterHours"`
	CompactOverBytes  *int64 `json:"compactOverBytes"`
}

func toRetentionBody(r store.Retention) retentionBody {
	h, b := int64(r.CompactAfter/time.Hour), r.CompactOverBytes
	return retentionBody{CompactAfterHours: &h, CompactOverBytes: &b}
}

func (a *API) storage(w http.ResponseWriter, r *http.Request) {
	z, err := a.opts.Store.Sizes(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	ret, err := a.opts.Store.Retention(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	out := storage{DatabaseBytes: z.DatabaseBytes, WALBytes: z.WALBytes, FreeBytes: z.FreeBytes, Retention: toRetentionBody(ret)}
	if a.opts.Worktrees != nil {
		total, _, err := a.opts.Worktrees.DiskUsage(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, "%v", err)
			return
		}
		out.WorktreeBytes = total
	}
	writeJSON(w, http.StatusOK, out)
}

// maxRetentionHours bounds the age budget (about ten years).
const maxRetentionHours = 24 * 366 * 10

// putRetention is PUT /api/storage/retention {compactAfterHours?,
// compactOverBytes?}: a field left out keeps its value; 0 turns a rule off.
func (a *API) putRetention(w http.ResponseWriter, r *http.Request) {
	var body retentionBody
	if !decodeJSON(w, r, &body) {
		return
	}
	cur, err := a.opts.Store.Retention(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	if h := body.CompactAfterHours; h != nil {
		if *h < 0 || *h > maxRetentionHours {
			writeError(w, http.StatusBadRequest, "compactAfterHours must be from 0 to %d", maxRetentionHours)
			return
		}
		cur.CompactAfter = time.Duration(*h) * time.Hour
	}
	if b := body.CompactOverBytes; b != nil {
		if *b < 0 {
			writeError(w, http.StatusBadRequest, "compactOverBytes cannot be negative")
			return
		}
		cur.CompactOverBytes = *b
	}
	if err := a.opts.Store.SetRetention(r.Context(), cur, time.Now().UnixMilli()); err != nil {
		if store.IsDiskFull(err) {
			writeError(w, http.StatusInsufficientStorage, "the disk is full: the setting could not be saved")
			return
		}
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, toRetentionBody(cur))
}
