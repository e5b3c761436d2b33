package api

import (
	"context"
	"net/http"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/worktree"
)

// The conflict radar over HTTP: live tasks (in progress or in review,
// with an active or paused worktree) whose changes share files, per
// repository, and the order to merge them in.

const (
	radarTTL        = 3 * time.Second // a board polling it costs one scan per repo every few seconds
	radarPerRepo    = 25              // worktrees compared per repository (the oldest ones)
	radarEachWait   = 5 * time.Second // one worktree (it may be locked by a finishing run: it is skipped)
	radarParallel   = 4
	radarCacheLimit = 32
)

func (a *API) radarRoutes() {
	c := &radarCache{entries: map[string]radarEntry{}}
	a.mux.Handle("/api/board/radar", methods{"GET": func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, c.get(r.Context(), a, r.URL.Query().Get("repoPath")))
	}})
}

type radarSpan [2]int

type radarHunk struct {
	A    radarSpan `json:"a"`
	B    radarSpan `json:"b"`
	AAdd bool      `json:"aAdd,omitempty"` // the side only inserts, after line [0]
	BAdd bool      `json:"bAdd,omitempty"`
}

type radarFile struct {
	Path  string      `json:"path"`
	Hunks []radarHunk `json:"hunks"`
}

type radarPair struct {
	A        string      `json:"a"`
	B        string      `json:"b"`
	RepoPath string      `json:"repoPath"`
	SameBase bool        `json:"sameBase"`
	Files    []radarFile `json:"files"`
}

type radarSkip struct {
	TaskID string `json:"taskId"`
	Error  string `json:"error"`
}

type radarAnswer struct {
	Pairs   []radarPair `json:"pairs"`
	Order   []string    `json:"order"`
	Tasks   int         `json:"tasks"` // live tasks compared
	Skipped []radarSkip `json:"skipped"`
	// Titles names each task of a pair, so a card can say which task it
	// overlaps by name.
	Titles map[string]string `json:"titles"`
	At     int64             `json:"at"` // when it was computed (ms)
}

type radarEntry struct {
	at  time.Time
	ans radarAnswer
}

// radarCache keeps each answer radarTTL; one scan runs at a time, and
// callers that waited for it take its answer.
type radarCache struct {
	run     sync.Mutex
	mu      sync.Mutex
	entries map[string]radarEntry
}

func (c *radarCache) fresh(key string) (radarAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e.ans, ok && time.Since(e.at) < radarTTL
}

func (c *radarCache) get(ctx context.Context, a *API, repo string) radarAnswer {
	if ans, ok := c.fresh(repo); ok {
		return ans
	}
	c.run.Lock()
	defer c.run.Unlock()
	if ans, ok := c.fresh(repo); ok {
		return ans
	}
	ans := a.radar(context.WithoutCancel(ctx), repo)
	c.mu.Lock()
	if len(c.entries) >= radarCacheLimit {
		clear(c.entries)
	}
	c.entries[repo] = radarEntry{at: time.Now(), ans: ans}
	c.mu.Unlock()
	return ans
}

// radar scans the live worktrees (of one repository, or of all).
func (a *API) radar(ctx context.Context, repo string) radarAnswer {
	ans := radarAnswer{Pairs: []radarPair{}, Order: []string{}, Skipped: []radarSkip{}, Titles: map[string]string{}, At: time.Now().UnixMilli()}
	if a.opts.Worktrees == nil {
		return ans
	}
	if repo != "" {
		if real, err := filepath.EvalSymlinks(repo); err == nil {
			repo = real
		}
		repo = filepath.Clean(repo)
	}
	tasks, err := a.opts.Board.List(ctx, board.Filter{Statuses: []board.Status{board.InProgress, board.InReview}, Limit: 2000})
	if err != nil {
		ans.Skipped = append(ans.Skipped, radarSkip{Error: err.Error()})
		return ans
	}
	byRepo, titles := map[string][]board.Worktree{}, map[string]string{}
	for _, t := range tasks {
		titles[t.ID] = t.Title
		rec, err := a.opts.Board.Worktree(ctx, t.ID)
		if err != nil || (rec.Status != "active" && rec.Status != "paused") || rec.BaseCommit == "" {
			continue
		}
		if repo != "" && rec.RepoPath != repo {
			continue
		}
		byRepo[rec.RepoPath] = append(byRepo[rec.RepoPath], rec)
	}
	repos := make([]string, 0, len(byRepo))
	for r := range byRepo {
		repos = append(repos, r)
	}
	sort.Strings(repos)
	for _, r := range repos {
		recs := byRepo[r]
		sort.Slice(recs, func(i, j int) bool {
			if recs[i].CreatedAt != recs[j].CreatedAt {
				return recs[i].CreatedAt < recs[j].CreatedAt
			}
			return recs[i].TaskID < recs[j].TaskID
		})
		if len(recs) > radarPerRepo {
			recs = recs[:radarPerRepo]
		}
		ans.Tasks += len(recs)
		changes, skipped := a.radarChanges(ctx, recs)
		ans.Skipped = append(ans.Skipped, skipped...)
		pairs := worktree.Overlaps(changes)
		for _, p := range pairs {
			ans.Pairs = append(ans.Pairs, toRadarPair(r, p))
			ans.Titles[p.A], ans.Titles[p.B] = titles[p.A], titles[p.B]
		}
		ans.Order = append(ans.Order, worktree.MergeOrder(changes, pairs)...)
	}
	return ans
}

// radarChanges reads each worktree's changes, a few at a time, in order;
// one that cannot be read in time is skipped, with why.
func (a *API) radarChanges(ctx context.Context, recs []board.Worktree) ([]worktree.Changes, []radarSkip) {
	out := make([]worktree.Changes, len(recs))
	errs := make([]error, len(recs))
	sem := make(chan struct{}, radarParallel)
	var wg sync.WaitGroup
	for i, rec := range recs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			cctx, cancel := context.WithTimeout(ctx, radarEachWait)
			defer cancel()
			out[i], errs[i] = a.opts.Worktrees.Changes(cctx, toWorktree(rec))
		}()
	}
	wg.Wait()
	var kept []worktree.Changes
	skipped := []radarSkip{}
	for i, c := range out {
		if errs[i] != nil {
			skipped = append(skipped, radarSkip{TaskID: recs[i].TaskID, Error: errs[i].Error()})
			continue
		}
		kept = append(kept, c)
	}
	return kept, skipped
}

func toRadarPair(repo string, p worktree.Pair) radarPair {
	out := radarPair{A: p.A, B: p.B, RepoPath: repo, SameBase: p.SameBase, Files: []radarFile{}}
	for _, f := range p.Files {
		rf := radarFile{Path: f.Path, Hunks: []radarHunk{}}
		for _, h := range f.Hunks {
			rf.Hunks = append(rf.Hunks, radarHunk{A: radarSpan{h.A.Start, h.A.End}, B: radarSpan{h.B.Start, h.B.End}, AAdd: h.A.Add, BAdd: h.B.Add})
		}
		out.Files = append(out.Files, rf)
	}
	return out
}
