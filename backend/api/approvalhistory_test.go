package api

import (
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/approval"
)

// GET /api/approvals?status=answered is the history: answered requests stay
// listed with the answer, where it was given and the note, newest answer
// first, paged by nextCursor; the pending list is unchanged.
func TestApprovalHistoryListsAnsweredRequests(t *testing.T) {
	f, q := withApprovals(t, nil)
	first, second, third := askAsync(q, time.Minute), askAsync(q, time.Minute), askAsync(q, time.Minute)
	ids := pendingIDs(t, f, 3)
	answer := func(id, body string) {
		t.Helper()
		if code, _, b := f.do(t, "POST", "/api/approvals/"+id+"/resolve", body); code != 200 {
			t.Fatal(code, string(b))
		}
		time.Sleep(5 * time.Millisecond) // distinct resolved_at
	}
	// What the client says of itself is not recorded (issue 26 §2.5d): a
	// program with the token that claims to be the popup answered by "api".
	answer(ids[0], `{"decision":"allow","by":"popup"}`)
	answer(ids[1], `{"decision":"deny","by":"page","note":"not now"}`)
	// (Which ask holds which id is not known: the asks ran concurrently,
	// so the channels are drained only once every request is answered.)

	type page struct {
		Approvals  []approval.Request `json:"approvals"`
		NextCursor *string            `json:"nextCursor"`
	}
	code, _, b := f.do(t, "GET", "/api/approvals?status=answered", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	got := decode[page](t, b)
	if len(got.Approvals) != 2 || got.NextCursor != nil {
		t.Fatalf("%s", b)
	}
	newest, older := got.Approvals[0], got.Approvals[1]
	if newest.ID != ids[1] || newest.Status != approval.Denied || newest.ResolvedBy != "api" || newest.Note != "not now" || newest.ResolvedAt == 0 {
		t.Fatalf("newest: %+v", newest)
	}
	if older.ID != ids[0] || older.Status != approval.Approved || older.ResolvedBy != "api" {
		t.Fatalf("older: %+v", older)
	}
	// Paged: one at a time, then the rest.
	_, _, b = f.do(t, "GET", "/api/approvals?status=answered&limit=1", "")
	p1 := decode[page](t, b)
	if len(p1.Approvals) != 1 || p1.NextCursor == nil || *p1.NextCursor != ids[1] {
		t.Fatalf("%s", b)
	}
	_, _, b = f.do(t, "GET", "/api/approvals?status=answered&limit=1&before="+*p1.NextCursor, "")
	if p2 := decode[page](t, b); len(p2.Approvals) != 1 || p2.Approvals[0].ID != ids[0] || p2.NextCursor != nil {
		t.Fatalf("%s", b)
	}
	// The pending list still holds only the unanswered one.
	_, _, b = f.do(t, "GET", "/api/approvals", "")
	if p := decode[page](t, b); len(p.Approvals) != 1 || p.Approvals[0].ID != ids[2] {
		t.Fatalf("%s", b)
	}
	for _, bad := range []string{"?status=nope", "?status=answered&limit=0"} {
		if code, _, b := f.do(t, "GET", "/api/approvals"+bad, ""); code != 400 {
			t.Fatal(bad, code, string(b))
		}
	}
	answer(ids[2], `{"decision":"deny"}`)
	<-first
	<-second
	<-third
}
