package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/store"
)

// keepAlive is how often an idle stream sends a comment, which also finds
// clients that went away without closing (the webview's pipe, say).
const keepAlive = 15 * time.Second

// eventPage is how many stored events one read fetches.
const eventPage = 2000

// sseWriter writes a Server-Sent Events stream through a buffer, flushing
// per batch rather than per event so a flood costs few syscalls.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf *bufio.Writer
	err error
}

func newSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w), buf: bufio.NewWriterSize(w, 64<<10)}
	s.raw("retry: 1000\n\n")
	s.flush()
	return s
}

func (s *sseWriter) raw(str string) {
	if s.err == nil {
		_, s.err = s.buf.WriteString(str)
	}
}

// event writes one event; id 0 means no id line, name "" means the default
// "message" event.
func (s *sseWriter) event(id int64, name string, data []byte) {
	if s.err != nil {
		return
	}
	if id > 0 {
		s.raw("id: ")
		s.raw(strconv.FormatInt(id, 10))
		s.raw("\n")
	}
	if name != "" {
		s.raw("event: ")
		s.raw(name)
		s.raw("\n")
	}
	// data never holds a raw newline: it is compact JSON, whose strings
	// escape control characters.
	s.raw("data: ")
	if s.err == nil {
		_, s.err = s.buf.Write(data)
	}
	s.raw("\n\n")
}

func (s *sseWriter) comment(c string) { s.raw(": " + c + "\n\n") }

// flush pushes buffered bytes to the client and reports a broken stream.
func (s *sseWriter) flush() error {
	if s.err == nil {
		s.err = s.buf.Flush()
	}
	if s.err == nil {
		if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			s.err = err
		}
	}
	return s.err
}

// badResumePoint is the refusal of a resume point that is not a number.
const badResumePoint = "Last-Event-ID / after must be a non-negative integer"

// resumePoint reads where a client wants to resume, for every stream that
// resumes (a run's events, a team room): Last-Event-ID (sent by
// EventSource on reconnect) wins over ?after=N; ok is false for anything
// but a non-negative integer.
func resumePoint(r *http.Request) (int64, bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}

// runEvents streams a run's events: everything stored after the resume
// point, then live events as they become durable, closing after done. Each
// event's SSE id is its seq. A finished run replays and closes.
func (a *API) runEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	after, ok := resumePoint(r)
	if !ok {
		writeError(w, http.StatusBadRequest, badResumePoint)
		return
	}
	// Watch before the first read, so a commit between the read and the
	// wait still wakes us.
	wake, cancel := a.opts.Supervisor.Watch(id)
	defer cancel()
	if _, err := a.lookupRun(r, id); errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "unknown run '%s'", id)
		return
	} else if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	sse := newSSE(w)
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	ctx := r.Context()
	settled := false // the run had left this process at the last empty read
	for {
		rows, err := a.opts.Store.ListEvents(ctx, id, after, eventPage)
		if err != nil {
			return
		}
		for _, row := range rows {
			sse.event(row.Seq, "", row.Data)
			after = row.Seq
			if row.Kind == "done" {
				sse.flush()
				return
			}
		}
		if sse.flush() != nil {
			return
		}
		if len(rows) == eventPage {
			continue
		}
		if len(rows) == 0 && settled {
			return // finished but its log has no done: nothing more will come
		}
		if !a.opts.Supervisor.Pending(id) {
			// Its final events are durable before it leaves the live set;
			// read once more, then stop.
			settled = true
			continue
		}
		select {
		case <-wake:
		case <-ping.C:
			sse.comment("ping")
			if sse.flush() != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// scheduleEvent names and encodes a routines change for /api/events.
func scheduleEvent(ev routines.Event) (string, []byte) {
	switch {
	case ev.Fire != nil:
		b, _ := json.Marshal(map[string]any{"fire": ev.Fire})
		return "schedule-fire", b
	case ev.Schedule != nil:
		b, _ := json.Marshal(map[string]any{"schedule": ev.Schedule})
		return "schedule", b
	default:
		b, _ := json.Marshal(map[string]any{"deleted": ev.Deleted})
		return "schedule", b
	}
}
