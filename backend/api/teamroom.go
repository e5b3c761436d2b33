package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/teams"
)

// teamStream is a room's live stream: "post" events (committed posts, id =
// seq; Last-Event-ID or ?after= resumes with no loss and no duplicates),
// and lossy "delta", "turn" and "board" events. Posts always come from the
// store in seq order: the bus only says when to read, so a subscriber the
// bus dropped for being slow re-subscribes and reads what it missed.
func (a *API) teamStream(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id, ok := a.teamID(w, r)
	if !ok {
		return
	}
	last, ok := resumePoint(r)
	if !ok {
		writeError(w, http.StatusBadRequest, badResumePoint)
		return
	}
	eng := a.opts.Orchestrator
	posts := eng.Posts.Subscribe(1024)
	defer func() { posts.Close() }()
	live := eng.Live.Subscribe(512)
	defer func() { live.Close() }()
	sse := newSSE(w)
	room := &roomReader{a: a, r: r, id: id, last: last, names: a.namerFor(r, id), sse: sse}
	catchUp := room.catchUp
	if !catchUp() {
		return
	}
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		select {
		case p, ok := <-posts.C():
			if !ok { // dropped for being slow: subscribe again, then read
				posts = eng.Posts.Subscribe(1024)
				if !catchUp() {
					return
				}
				continue
			}
			if p.TeamID != id || p.Seq <= room.last {
				continue
			}
			if !catchUp() {
				return
			}
			continue
		case ev, ok := <-live.C():
			if !ok {
				live = eng.Live.Subscribe(512)
				continue
			}
			if ev.TeamID != id {
				continue
			}
			name, data := liveEvent(ev)
			if name == "" {
				continue
			}
			b, _ := json.Marshal(data)
			sse.event(0, name, b)
		case <-ping.C:
			sse.comment("ping")
		case <-r.Context().Done():
			return
		}
		if sse.flush() != nil {
			return
		}
	}
}

func liveEvent(ev orchestrate.LiveEvent) (string, any) {
	switch {
	case ev.Delta != nil:
		return "delta", ev.Delta
	case ev.Turn != nil:
		return "turn", ev.Turn
	case ev.Task != nil:
		return "board", ev.Task
	}
	return "", nil
}

// postTask is the task a post is about, null for none.
func postTask(p teams.Post) *string {
	if p.TaskID == "" {
		return nil
	}
	id := p.TaskID
	return &id
}

// roomReader sends a team room's posts after last to a stream, in order.
type roomReader struct {
	a     *API
	r     *http.Request
	id    string
	last  int64
	names namer
	sse   *sseWriter
}

// catchUp sends every post after last (names read again when an author is
// new) and flushes; false when the room cannot be read or the client left.
func (rr *roomReader) catchUp() bool {
	for {
		ps, _, more, err := teams.ReadPosts(rr.r.Context(), rr.a.opts.Store, rr.id, rr.last, "", 500)
		if err != nil {
			return false
		}
		for _, p := range ps {
			if _, known := rr.names[p.Author]; !known {
				rr.names = rr.a.namerFor(rr.r, rr.id)
			}
			b, _ := json.Marshal(rr.names.view(p))
			rr.sse.event(p.Seq, "post", b)
			rr.last = p.Seq
		}
		if !more {
			return rr.sse.flush() == nil
		}
	}
}
