package api

import (
	"net/url"
	"testing"
)

// GET /api/runs?sessionKey=agent:<id>:chat lists one agent's chat turns,
// newest first, live ones included (the key is written with the row at the
// start, even on a runtime without sessions), and nothing else of the
// agent's; before pages on.
func TestRunsFilterBySessionKeyListsAChatsTurns(t *testing.T) {
	f := newAgentFixture(t)
	m := f.create(t, `{"name":"Mock Pal","runtime":"clawboo-mock","model":"mock"}`)
	first := decode[map[string]string](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"!ok one"}`, 202))["runId"]
	waitRun(t, f.fixture, first)
	// The agent's ad-hoc run is not a chat turn.
	adhoc := decode[map[string]any](t, f.call(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok other","agentId":"`+m.ID+`"}`, 200))["runId"].(string)
	live := decode[map[string]string](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"!ok two\n!silent 3000"}`, 202))["runId"]

	key := url.QueryEscape("agent:" + m.ID + ":chat")
	type page struct {
		Runs []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"runs"`
		NextCursor *string `json:"nextCursor"`
	}
	got := decode[page](t, f.call(t, "GET", "/api/runs?sessionKey="+key, "", 200))
	if len(got.Runs) != 2 || got.Runs[0].ID != live || got.Runs[1].ID != first || got.NextCursor != nil {
		t.Fatalf("%+v (adhoc %s)", got, adhoc)
	}
	if got.Runs[0].Status != "running" && got.Runs[0].Status != "starting" {
		t.Fatalf("the live turn: %+v", got.Runs[0])
	}
	p1 := decode[page](t, f.call(t, "GET", "/api/runs?limit=1&sessionKey="+key, "", 200))
	if len(p1.Runs) != 1 || p1.NextCursor == nil || *p1.NextCursor != live {
		t.Fatalf("%+v", p1)
	}
	p2 := decode[page](t, f.call(t, "GET", "/api/runs?limit=1&sessionKey="+key+"&before="+live, "", 200))
	if len(p2.Runs) != 1 || p2.Runs[0].ID != first || p2.NextCursor != nil {
		t.Fatalf("%+v", p2)
	}
	if other := decode[page](t, f.call(t, "GET", "/api/runs?sessionKey=agent:nobody:chat", "", 200)); len(other.Runs) != 0 {
		t.Fatalf("%+v", other)
	}
	f.call(t, "POST", "/api/runs/"+live+"/abort", "", 202)
	waitRun(t, f.fixture, live)
}

// A chat turn carries the person's whole message (prompt) in its
// conversation's list and in GET /api/runs/{id}, live and ended; the
// general runs list leaves it out, so it stays light.
func TestChatTurnsCarryTheWholeMessage(t *testing.T) {
	f := newAgentFixture(t)
	m := f.create(t, `{"name":"Mock Pal","runtime":"clawboo-mock","model":"mock"}`)
	const done = "!ok one\nthe second line\n\nand a third, after a blank one"
	first := decode[map[string]string](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"!ok one\nthe second line\n\nand a third, after a blank one"}`, 202))["runId"]
	waitRun(t, f.fixture, first)
	const liveMsg = "!ok two\n!silent 3000"
	live := decode[map[string]string](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"!ok two\n!silent 3000"}`, 202))["runId"]

	type run struct {
		ID     string  `json:"id"`
		Title  string  `json:"title"`
		Prompt *string `json:"prompt"`
	}
	type page struct {
		Runs []run `json:"runs"`
	}
	got := decode[page](t, f.call(t, "GET", "/api/runs?sessionKey="+url.QueryEscape("agent:"+m.ID+":chat"), "", 200))
	if len(got.Runs) != 2 || got.Runs[0].Prompt == nil || *got.Runs[0].Prompt != liveMsg ||
		got.Runs[1].Prompt == nil || *got.Runs[1].Prompt != done || got.Runs[1].Title != "!ok one" {
		t.Fatalf("%+v", got)
	}
	for _, id := range []string{first, live} {
		one := decode[run](t, f.call(t, "GET", "/api/runs/"+id, "", 200))
		if one.Prompt == nil || (*one.Prompt != done && *one.Prompt != liveMsg) {
			t.Fatalf("GET /api/runs/%s: %+v", id, one)
		}
	}
	all := decode[page](t, f.call(t, "GET", "/api/runs", "", 200))
	if len(all.Runs) != 2 {
		t.Fatalf("%+v", all)
	}
	for _, r := range all.Runs {
		if r.Prompt != nil {
			t.Fatalf("the general list carries %s's prompt", r.ID)
		}
	}
	f.call(t, "POST", "/api/runs/"+live+"/abort", "", 202)
	waitRun(t, f.fixture, live)
}
