package llm

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

// twoCandidates is anthropic first, openai as its fallback, both on the fake.
func twoCandidates(t *testing.T, r *rig) *Router {
	t.Helper()
	rt, err := NewRouter([]Candidate{
		{Provider: "anthropic", Model: "claude-haiku-4-5", Key: testKey},
		{Provider: "openai", Model: "gpt-4o-mini", Key: testKey},
	}, r.getenv)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func turn(t *testing.T, rt *Router) ([]Event, Served, error) {
	t.Helper()
	s, err := rt.Stream(context.Background(), baseReq())
	if err != nil {
		return nil, Served{}, err
	}
	evs, err := collect(t, s)
	return evs, s.Served(), err
}

func TestFallbackBeforeOutput(t *testing.T) {
	for name, resp := range map[string]fakeprovider.Response{
		"auth":       fakeprovider.Status(401),
		"forbidden":  fakeprovider.Status(403),
		"rate_limit": fakeprovider.Status(429),
		"overloaded": fakeprovider.Status(529),
		"server":     fakeprovider.Status(500),
		"dropped":    fakeprovider.Dropped(),
		// message_start and ping only: nothing was yielded yet
		"cut_before_output": fakeprovider.CutAfter(2, fakeprovider.Text("never")),
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t)
			rt := twoCandidates(t, r)
			r.fake.Push(msgPath, resp)
			r.fake.Push(chatPath, fakeprovider.Text("from ", "openai"))
			evs, served, err := turn(t, rt)
			if err != nil {
				t.Fatal(err)
			}
			if textOf(evs, EvText) != "from openai" || served != (Served{Index: 1, Provider: "openai", Model: "gpt-4o-mini"}) {
				t.Fatalf("evs %v served %+v", evs, served)
			}
			var b struct{ Model string }
			_ = r.fake.RequestsTo(chatPath)[0].JSON(&b)
			if b.Model != "gpt-4o-mini" {
				t.Errorf("fallback model = %q", b.Model)
			}
		})
	}
}

func TestNoFallbackOnBadRequestOrOverflow(t *testing.T) {
	for name, c := range map[string]struct {
		resp fakeprovider.Response
		want Class
	}{
		"bad_request": {fakeprovider.Status(400), ClassBadRequest},
		"not_found":   {fakeprovider.Status(404), ClassBadRequest},
		"overflow":    {fakeprovider.Overflow(), ClassContextOverflow},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t)
			rt := twoCandidates(t, r)
			r.fake.Push(msgPath, c.resp)
			r.fake.Push(chatPath, fakeprovider.Text("unused"))
			_, _, err := turn(t, rt)
			if Classify(err) != c.want {
				t.Fatalf("err = %v", err)
			}
			if n := len(r.fake.RequestsTo(chatPath)); n != 0 {
				t.Fatalf("fallback called %d times", n)
			}
			if c.want == ClassContextOverflow && !errors.Is(err, ErrContextOverflow) {
				t.Error("not ErrContextOverflow")
			}
		})
	}
}

func TestErrorAfterOutputSurfaces(t *testing.T) {
	r := newRig(t)
	rt := twoCandidates(t, r)
	// message_start, ping, content_block_start, one text delta, then cut
	r.fake.Push(msgPath, fakeprovider.CutAfter(4, fakeprovider.Text("partial", " rest")))
	r.fake.Push(chatPath, fakeprovider.Text("unused"))
	evs, served, err := turn(t, rt)
	if Classify(err) != ClassNetwork || textOf(evs, EvText) != "partial" || served.Provider != "anthropic" {
		t.Fatalf("evs %v served %+v err %v", evs, served, err)
	}
	if n := len(r.fake.RequestsTo(chatPath)); n != 0 {
		t.Fatalf("fallback called after output")
	}
}

func TestAllCandidatesFailReturnsTheLastError(t *testing.T) {
	r := newRig(t)
	rt := twoCandidates(t, r)
	r.fake.Push(msgPath, fakeprovider.Status(529))
	r.fake.Push(chatPath, fakeprovider.Status(429))
	_, _, err := turn(t, rt)
	var le *Error
	if !errors.As(err, &le) || le.Class != ClassRateLimit || le.Provider != "openai" {
		t.Fatalf("err = %v", err)
	}
}

func TestWorkingCandidateStaysChosen(t *testing.T) {
	r := newRig(t)
	rt := twoCandidates(t, r)
	r.fake.Push(msgPath, fakeprovider.Status(429))
	r.fake.Push(chatPath, fakeprovider.Text("one"), fakeprovider.Text("two"))
	if _, served, err := turn(t, rt); err != nil || served.Index != 1 {
		t.Fatalf("turn 1: %+v %v", served, err)
	}
	if rt.Current().Provider != "openai" {
		t.Fatalf("current = %+v", rt.Current())
	}
	evs, served, err := turn(t, rt)
	if err != nil || served.Index != 1 || textOf(evs, EvText) != "two" {
		t.Fatalf("turn 2: %v %+v %v", evs, served, err)
	}
	if n := len(r.fake.RequestsTo(msgPath)); n != 1 {
		t.Fatalf("primary retried: %d requests", n)
	}
	// SetModel changes the model, not the provider
	rt.SetModel("gpt-4o")
	r.fake.Push(chatPath, fakeprovider.Text("three"))
	if _, served, err := turn(t, rt); err != nil || served != (Served{Index: 1, Provider: "openai", Model: "gpt-4o"}) {
		t.Fatalf("turn 3: %+v %v", served, err)
	}
}

func TestKeylessCandidatesDroppedExceptOllama(t *testing.T) {
	r := newRig(t)
	rt, err := NewRouter([]Candidate{
		{Provider: "anthropic", Model: "claude-haiku-4-5"},
		{Provider: "groq", Model: "llama"},
		{Provider: "ollama", Model: "llama3.2"},
	}, r.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c := rt.Candidates(); len(c) != 1 || c[0].Provider != "ollama" {
		t.Fatalf("candidates = %v", c)
	}
	r.fake.Push(chatPath, fakeprovider.Text("local"))
	if _, served, err := turn(t, rt); err != nil || served.Provider != "ollama" {
		t.Fatalf("%+v %v", served, err)
	}
}

func TestNoCandidatesIsAnAuthError(t *testing.T) {
	_, err := NewRouter([]Candidate{{Provider: "anthropic", Model: "m"}, {Provider: "openai", Model: "m"}}, nil)
	if Classify(err) != ClassAuth || err.Error() != "auth: no provider key available (checked ANTHROPIC_API_KEY and fallbacks)" {
		t.Fatalf("err = %v", err)
	}
}

// The stable tier is byte-identical from turn to turn: the system prompt
// and the tool list the provider receives do not change as the transcript
// grows.
func TestSystemAndToolsByteIdenticalAcrossTurns(t *testing.T) {
	for _, c := range []struct{ provider, path string }{{"anthropic", msgPath}, {"openai", chatPath}} {
		t.Run(c.provider, func(t *testing.T) {
			r := newRig(t)
			rt, err := NewRouter([]Candidate{{Provider: c.provider, Model: "m", Key: testKey}}, r.getenv)
			if err != nil {
				t.Fatal(err)
			}
			req := baseReq()
			for i := 0; i < 3; i++ {
				r.fake.Push(c.path, fakeprovider.Tools(fakeprovider.ToolCall{ID: "t" + string(rune('0'+i)), Name: "read_file", Args: `{"path":"a"}`}))
				s, err := rt.Stream(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				evs, err := collect(t, s)
				if err != nil {
					t.Fatal(err)
				}
				call := calls(evs)[0]
				req.Messages = append(req.Messages,
					Message{Role: Assistant, Content: []Block{{Type: ToolUse, ID: call.ID, Name: call.Name, Input: call.Input}}},
					Message{Role: User, Content: []Block{{Type: ToolResult, ID: call.ID, Text: "contents"}}})
			}
			reqs := r.fake.RequestsTo(c.path)
			var first map[string]json.RawMessage
			for i, rq := range reqs {
				b := body(t, rq)
				stable := map[string]json.RawMessage{"tools": b["tools"]}
				if c.provider == "anthropic" {
					stable["system"] = b["system"]
				} else {
					var msgs []json.RawMessage
					_ = json.Unmarshal(b["messages"], &msgs)
					stable["system"] = msgs[0]
				}
				if i == 0 {
					first = stable
					continue
				}
				for k, v := range stable {
					if string(v) != string(first[k]) || len(v) == 0 {
						t.Errorf("turn %d %s changed:\n%s\n%s", i, k, first[k], v)
					}
				}
			}
		})
	}
}

// An in-stream error event (Anthropic `event: error` overloaded after the
// 200) before any output falls back; after output it surfaces.
func TestInStreamErrorEvents(t *testing.T) {
	for _, c := range []struct {
		name      string
		primary   string
		path      string
		fallback  string
		fbPath    string
		after     int
		wantFB    bool
		wantClass Class
	}{
		{"anthropic/before", "anthropic", msgPath, "openai", chatPath, 2, true, ""},
		{"anthropic/after", "anthropic", msgPath, "openai", chatPath, 4, false, ClassOverloaded},
		{"openai/before", "openai", chatPath, "anthropic", msgPath, 1, true, ""},
		{"openai/after", "openai", chatPath, "anthropic", msgPath, 2, false, ClassOverloaded},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			rt, err := NewRouter([]Candidate{{Provider: c.primary, Model: "a", Key: testKey}, {Provider: c.fallback, Model: "b", Key: testKey}}, r.getenv)
			if err != nil {
				t.Fatal(err)
			}
			r.fake.Push(c.path, fakeprovider.StreamErrorAfter(c.after, fakeprovider.Text("x", "y")))
			r.fake.Push(c.fbPath, fakeprovider.Text("fallback"))
			evs, served, err := turn(t, rt)
			if c.wantFB {
				if err != nil || served.Provider != c.fallback || textOf(evs, EvText) != "fallback" {
					t.Fatalf("evs %v served %+v err %v", evs, served, err)
				}
				return
			}
			if Classify(err) != c.wantClass || served.Provider != c.primary || textOf(evs, EvText) != "x" {
				t.Fatalf("evs %v served %+v err %v", evs, served, err)
			}
			if n := len(r.fake.RequestsTo(c.fbPath)); n != 0 {
				t.Fatal("fell back after output")
			}
		})
	}
}

func TestCancelledTurnDoesNotFallBack(t *testing.T) {
	r := newRig(t)
	rt := twoCandidates(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.fake.Push(chatPath, fakeprovider.Text("unused"))
	_, err := rt.Stream(ctx, baseReq())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n := len(r.fake.RequestsTo(chatPath)); n != 0 {
		t.Fatal("fell back on cancel")
	}
}
