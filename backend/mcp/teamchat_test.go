package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
)

// chatHub is a test hub with a real database.
func chatHub(t *testing.T) (*Hub, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newTestHub(t, Options{Store: st}), st
}

// chatSession is an in-process TeamChat session bound to b.
func chatSession(t *testing.T, h *Hub, b Binding) *Session {
	t.Helper()
	s, err := h.Session(context.Background(), TeamChat, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

type subscribeResult struct {
	Posts   []wirePost `json:"posts"`
	NextSeq int64      `json:"nextSeq"`
	More    bool       `json:"more"`
}

type delegateResult struct {
	Delegated struct {
		Seq      int64  `json:"seq"`
		RoomID   string `json:"roomId"`
		Assignee string `json:"assignee"`
	} `json:"delegated"`
}

type postResult struct {
	Posted struct {
		Seq           int64  `json:"seq"`
		RoomID        string `json:"roomId"`
		AuthorAgentID string `json:"authorAgentId"`
	} `json:"posted"`
}

// chatOK calls a tool that must succeed and decodes its JSON answer.
func chatOK[T any](t *testing.T, s *Session, tool string, args map[string]any) T {
	t.Helper()
	res, err := s.CallTool(context.Background(), tool, args)
	text := callText(t, res, err)
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, text)
	}
	return v
}

// chatRefused calls a tool that must fail with a tool error; it returns the
// denial code and the text.
func chatRefused(t *testing.T, s *Session, tool string, args map[string]any) (string, string) {
	t.Helper()
	res, err := s.CallTool(context.Background(), tool, args)
	text := callText(t, res, err)
	if !res.IsError {
		t.Fatalf("%s %v was accepted: %s", tool, args, text)
	}
	code := ""
	if res.Meta != nil {
		code, _ = res.Meta.AdditionalFields["denied"].(string)
	}
	return code, text
}

func chatSeqs(ps []wirePost) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.Seq
	}
	return out
}

func TestTeamChatPostAndSubscribeCursor(t *testing.T) {
	h, _ := chatHub(t)
	alice := chatSession(t, h, Binding{TeamID: "t1", AgentID: "alice"})
	bob := chatSession(t, h, Binding{TeamID: "t1", AgentID: "bob"})
	other := chatSession(t, h, Binding{TeamID: "t2", AgentID: "carol"})

	p := chatOK[postResult](t, alice, toolPost, map[string]any{"text": "hello\nteam"})
	if p.Posted.Seq != 1 || p.Posted.RoomID != "t1" || p.Posted.AuthorAgentID != "alice" {
		t.Fatalf("%+v", p)
	}
	chatOK[postResult](t, alice, toolPost, map[string]any{"text": "second", "authorAgentId": "alice", "teamId": "t1", "roomId": "t1"})
	chatOK[postResult](t, bob, toolPost, map[string]any{"text": "hi alice"})
	if p := chatOK[postResult](t, other, toolPost, map[string]any{"text": "other room"}); p.Posted.Seq != 1 {
		t.Fatalf("rooms share a sequence: %+v", p)
	}

	// bob reads alice's two posts, not his own.
	got := chatOK[subscribeResult](t, bob, toolSubscribe, nil)
	if !slices.Equal(chatSeqs(got.Posts), []int64{1, 2}) || got.NextSeq != 3 || got.More {
		t.Fatalf("%+v", got)
	}
	want := "[Inter-session message · from=alice · kind=peer · seq=1 · isUser=false]\n| hello\n| team"
	if got.Posts[0].Wrapped != want || got.Posts[0].AuthorAgentID != "alice" || got.Posts[0].Kind != "peer" {
		t.Fatalf("%q", got.Posts[0].Wrapped)
	}
	// alice reads bob's; the cursor then sees nothing new.
	got = chatOK[subscribeResult](t, alice, toolSubscribe, map[string]any{"sinceSeq": 0})
	if !slices.Equal(chatSeqs(got.Posts), []int64{3}) || got.NextSeq != 3 {
		t.Fatalf("%+v", got)
	}
	got = chatOK[subscribeResult](t, alice, toolSubscribe, map[string]any{"sinceSeq": got.NextSeq})
	if len(got.Posts) != 0 || got.NextSeq != 3 {
		t.Fatalf("%+v", got)
	}
	// Own posts past the last read are skipped by nextSeq too.
	chatOK[postResult](t, alice, toolPost, map[string]any{"text": "mine"})
	got = chatOK[subscribeResult](t, alice, toolSubscribe, map[string]any{"sinceSeq": 3})
	if len(got.Posts) != 0 || got.NextSeq != 4 {
		t.Fatalf("%+v", got)
	}
	// A cursor beyond the room (a reset database) is kept.
	got = chatOK[subscribeResult](t, alice, toolSubscribe, map[string]any{"sinceSeq": 99})
	if len(got.Posts) != 0 || got.NextSeq != 99 {
		t.Fatalf("%+v", got)
	}
	// A page cut by limit ends at its last post, so nothing is skipped.
	for i := range 3 {
		chatOK[postResult](t, bob, toolPost, map[string]any{"text": fmt.Sprint("more ", i)})
	}
	var read []int64
	cursor := int64(0)
	for range 10 {
		got = chatOK[subscribeResult](t, alice, toolSubscribe, map[string]any{"sinceSeq": cursor, "limit": 2})
		read = append(read, chatSeqs(got.Posts)...)
		cursor = got.NextSeq
		if !got.More {
			break
		}
	}
	if !slices.Equal(read, []int64{3, 5, 6, 7}) || cursor != 7 {
		t.Fatalf("paged %v, cursor %d", read, cursor)
	}
	// carol's room is hers alone.
	got = chatOK[subscribeResult](t, other, toolSubscribe, nil)
	if len(got.Posts) != 0 || got.NextSeq != 1 {
		t.Fatalf("%+v", got)
	}
}

func TestTeamChatRefusesSpoofing(t *testing.T) {
	h, _ := chatHub(t)
	alice := chatSession(t, h, Binding{TeamID: "t1", AgentID: "alice"})
	for _, args := range []map[string]any{
		{"text": "x", "authorAgentId": "bob"},
		{"text": "x", "teamId": "t2"},
		{"text": "x", "roomId": "t2"},
		{"text": "x", "authorAgentId": "alice", "roomId": "elsewhere"},
	} {
		code, text := chatRefused(t, alice, toolPost, args)
		if code != "spoofing" || !strings.Contains(text, "refused") {
			t.Fatalf("%v: %s %s", args, code, text)
		}
	}
	for _, args := range []map[string]any{{"teamId": "t2"}, {"roomId": "t2"}, {"authorAgentId": "bob"}} {
		if code, _ := chatRefused(t, alice, toolSubscribe, args); code != "spoofing" {
			t.Fatalf("%v: %s", args, code)
		}
	}
	// Nothing was stored under anyone's name.
	reader := chatSession(t, h, Binding{})
	if got := chatOK[subscribeResult](t, reader, toolSubscribe, map[string]any{"teamId": "t1"}); len(got.Posts) != 0 {
		t.Fatalf("%+v", got)
	}
	if got := chatOK[subscribeResult](t, reader, toolSubscribe, map[string]any{"teamId": "t2"}); len(got.Posts) != 0 {
		t.Fatalf("%+v", got)
	}
}

func TestTeamChatNeedsAgentAndTeam(t *testing.T) {
	h, _ := chatHub(t)
	poster := chatSession(t, h, Binding{TeamID: "t1", AgentID: "alice"})
	chatOK[postResult](t, poster, toolPost, map[string]any{"text": "from alice"})

	for _, tc := range []struct {
		b    Binding
		code string
	}{
		{Binding{}, "unbound"},
		{Binding{TeamID: "t1"}, "half_bound"},
		{Binding{AgentID: "alice"}, "half_bound"},
		{Binding{AgentID: "alice", Delegate: true}, "half_bound"},
	} {
		s := chatSession(t, h, tc.b)
		if code, text := chatRefused(t, s, toolPost, map[string]any{"text": "x", "authorAgentId": "alice", "teamId": "t1"}); code != tc.code {
			t.Fatalf("%+v: %s %s", tc.b, code, text)
		}
		if tc.b.Delegate {
			if code, _ := chatRefused(t, s, toolDelegate, map[string]any{"assignee": "bob", "task": "x"}); code != tc.code {
				t.Fatalf("%+v: delegate %s", tc.b, code)
			}
		}
	}
	// Reading: a team-only binding reads its team; an agent-only one has no
	// room; an unbound session names the team (and may name whose posts to
	// leave out).
	got := chatOK[subscribeResult](t, chatSession(t, h, Binding{TeamID: "t1"}), toolSubscribe, nil)
	if len(got.Posts) != 1 {
		t.Fatalf("%+v", got)
	}
	if code, _ := chatRefused(t, chatSession(t, h, Binding{AgentID: "alice"}), toolSubscribe, map[string]any{"teamId": "t1"}); code != "no_team" {
		t.Fatal(code)
	}
	unbound := chatSession(t, h, Binding{})
	if code, _ := chatRefused(t, unbound, toolSubscribe, nil); code != "invalid_args" {
		t.Fatal(code)
	}
	if got := chatOK[subscribeResult](t, unbound, toolSubscribe, map[string]any{"roomId": "t1"}); len(got.Posts) != 1 {
		t.Fatalf("%+v", got)
	}
	if got := chatOK[subscribeResult](t, unbound, toolSubscribe, map[string]any{"teamId": "t1", "authorAgentId": "alice"}); len(got.Posts) != 0 || got.NextSeq != 1 {
		t.Fatalf("%+v", got)
	}
	if code, _ := chatRefused(t, unbound, toolSubscribe, map[string]any{"teamId": "t1", "roomId": "t2"}); code != "invalid_args" {
		t.Fatal(code)
	}
}

func TestTeamChatBounds(t *testing.T) {
	h, st := chatHub(t)
	alice := chatSession(t, h, Binding{TeamID: "t1", AgentID: "alice"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{toolPost, map[string]any{"text": strings.Repeat("a", MaxChatText+1)}},
		{toolPost, map[string]any{"text": " \n "}},
		{toolPost, nil},
		{toolPost, map[string]any{"text": "x", "mood": "sly"}},
		{toolSubscribe, map[string]any{"limit": 0}},
		{toolSubscribe, map[string]any{"limit": 501}},
		{toolSubscribe, map[string]any{"limit": 1.5}},
		{toolSubscribe, map[string]any{"sinceSeq": -1}},
	} {
		if code, text := chatRefused(t, alice, c.tool, c.args); code != "invalid_args" {
			t.Fatalf("%s %v: %s %s", c.tool, c.args, code, text)
		}
	}
	chatOK[postResult](t, alice, toolPost, map[string]any{"text": strings.Repeat("b", MaxChatText)})
	chatOK[subscribeResult](t, alice, toolSubscribe, map[string]any{"limit": 500})

	// Secrets are scrubbed before they are stored.
	key := "sk-ant-" + strings.Repeat("Z", 40)
	chatOK[postResult](t, alice, toolPost, map[string]any{"text": "use " + key + " please"})
	var body string
	if err := st.Reader().QueryRow(`SELECT body FROM team_chat WHERE room_id = 't1' AND seq = 2`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, key) || !strings.Contains(body, "[REDACTED]") {
		t.Fatalf("stored %q", body)
	}
}

func TestTeamDelegateOnlyWhenSigned(t *testing.T) {
	h, st := chatHub(t)
	ctx := context.Background()
	plain := chatSession(t, h, Binding{TeamID: "t1", AgentID: "alice"})
	lead := chatSession(t, h, Binding{TeamID: "t1", AgentID: "lead", Delegate: true})

	names := func(s *Session) []string {
		tools, err := s.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range tools {
			out = append(out, tl.Name)
		}
		return out
	}
	if n := names(plain); slices.Contains(n, toolDelegate) || !slices.Contains(n, toolPost) || !slices.Contains(n, toolSubscribe) {
		t.Fatal(n)
	}
	if n := names(lead); !slices.Contains(n, toolDelegate) {
		t.Fatal(n)
	}
	res, err := plain.CallTool(ctx, toolDelegate, map[string]any{"assignee": "bob", "task": "x"})
	if err == nil && !res.IsError {
		t.Fatal("team_delegate ran for a session without delegate")
	}
	// The handler refuses too, whatever reaches it.
	if r := (&teamChat{h: h}).delegate(ctx, Caller{Binding: Binding{TeamID: "t1", AgentID: "alice"}}, delegateArgs{Assignee: "bob", Task: "x"}); !r.IsError {
		t.Fatal("handler accepted a delegate without the flag")
	}

	for _, args := range []map[string]any{{"assignee": "", "task": "x"}, {"assignee": "bob"}, {"assignee": "b\nb", "task": "x"}, {"assignee": strings.Repeat("b", 129), "task": "x"}, {"assignee": "lead", "task": "x"}} {
		if code, _ := chatRefused(t, lead, toolDelegate, args); code != "invalid_args" {
			t.Fatalf("%v: %s", args, code)
		}
	}
	d := chatOK[delegateResult](t, lead, toolDelegate, map[string]any{"assignee": "bob", "task": "write the parser\nwith tests"})
	if d.Delegated.Seq != 1 || d.Delegated.RoomID != "t1" || d.Delegated.Assignee != "bob" {
		t.Fatalf("%+v", d)
	}
	got := chatOK[subscribeResult](t, plain, toolSubscribe, nil)
	want := "[Inter-session message · from=lead · kind=delegate · seq=1 · isUser=false]\n| delegate to bob:\n| write the parser\n| with tests"
	if len(got.Posts) != 1 || got.Posts[0].Kind != "delegate" || got.Posts[0].Wrapped != want {
		t.Fatalf("%+v", got)
	}
	var assignee string
	if err := st.Reader().QueryRow(`SELECT assignee FROM team_chat WHERE room_id = 't1' AND seq = 1`).Scan(&assignee); err != nil || assignee != "bob" {
		t.Fatal(assignee, err)
	}
}

func TestTeamChatConcurrentPostersGetUniqueIncreasingSeqs(t *testing.T) {
	h, _ := chatHub(t)
	const posters, each = 8, 25
	seqsBy := make([][]int64, posters)
	var wg sync.WaitGroup
	for i := range posters {
		s := chatSession(t, h, Binding{TeamID: "t1", AgentID: fmt.Sprint("agent-", i)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				res, err := s.CallTool(context.Background(), toolPost, map[string]any{"text": fmt.Sprint(i, "/", j)})
				if err != nil || res.IsError {
					t.Error(err, res)
					return
				}
				var p postResult
				_ = json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &p)
				seqsBy[i] = append(seqsBy[i], p.Posted.Seq)
			}
		}()
	}
	wg.Wait()
	var all []int64
	for i, ss := range seqsBy {
		if !slices.IsSorted(ss) || len(ss) != each {
			t.Fatalf("poster %d got %v", i, ss)
		}
		all = append(all, ss...)
	}
	slices.Sort(all)
	for i, s := range all {
		if s != int64(i+1) {
			t.Fatalf("seqs are not 1..%d without gaps or repeats: %v", posters*each, all)
		}
	}
	// A reader paging through sees every post exactly once, in order.
	reader := chatSession(t, h, Binding{TeamID: "t1", AgentID: "reader"})
	var read []int64
	cursor := int64(0)
	for {
		got := chatOK[subscribeResult](t, reader, toolSubscribe, map[string]any{"sinceSeq": cursor, "limit": 37})
		read = append(read, chatSeqs(got.Posts)...)
		cursor = got.NextSeq
		if !got.More {
			break
		}
	}
	if !slices.Equal(read, all) {
		t.Fatalf("read %d posts", len(read))
	}
}

func TestTeamChatOverHTTPWithSignedBinding(t *testing.T) {
	h, _ := chatHub(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	at, err := h.Attach(srv.URL, Binding{TeamID: "t1", AgentID: "alice"}, false)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := httpClient(t, at.URLs[ServerName(TeamChat)], auth)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := httpClient(t, srv.URL+"/mcp/teamchat?"+h.Signer().Query(Binding{TeamID: "t1", AgentID: "bob", Delegate: true}), auth)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustCall(t, alice, toolPost, map[string]any{"text": "over http"}); got != `{"posted":{"authorAgentId":"alice","roomId":"t1","seq":1}}` {
		t.Fatal(got)
	}
	res, err := call(alice, toolPost, map[string]any{"text": "x", "authorAgentId": "bob"})
	if text := callText(t, res, err); !res.IsError || !strings.Contains(text, "spoofing") && !strings.Contains(text, "refused") {
		t.Fatal(text)
	}
	var got subscribeResult
	if err := json.Unmarshal([]byte(mustCall(t, bob, toolSubscribe, nil)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Posts) != 1 || got.Posts[0].AuthorAgentID != "alice" || got.NextSeq != 1 {
		t.Fatalf("%+v", got)
	}
	listed := func(c interface {
		ListTools(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
	},
	) bool {
		r, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(r.Tools, func(tl mcp.Tool) bool { return tl.Name == toolDelegate })
	}
	if listed(alice) || !listed(bob) {
		t.Fatal("team_delegate listed for the wrong session")
	}
	if res, err := call(alice, toolDelegate, map[string]any{"assignee": "bob", "task": "x"}); err == nil && !res.IsError {
		t.Fatal("team_delegate ran over HTTP without delegate=1")
	}
	if got := mustCall(t, bob, toolDelegate, map[string]any{"assignee": "alice", "task": "review"}); !strings.Contains(got, `"seq":2`) {
		t.Fatal(got)
	}
}
