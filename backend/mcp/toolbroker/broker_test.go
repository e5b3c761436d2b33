package toolbroker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// brokerApprover is a scripted Approver; broker is the hub's (Hub.Tools).
type brokerApprover struct {
	mu     sync.Mutex
	asked  []ApprovalRequest
	answer func(ApprovalRequest) (ApprovalAnswer, error)
	broker *Broker
}

func (a *brokerApprover) Ask(_ context.Context, r ApprovalRequest) (ApprovalAnswer, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r)
	fn := a.answer
	a.mu.Unlock()
	if fn == nil {
		return ApprovalAnswer{ID: "appr-1", Outcome: ApprovalExpired}, nil
	}
	return fn(r)
}

func (a *brokerApprover) requests() []ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked)
}

func answerWith(o ApprovalOutcome) func(ApprovalRequest) (ApprovalAnswer, error) {
	return func(ApprovalRequest) (ApprovalAnswer, error) {
		return ApprovalAnswer{ID: "appr-" + string(o), Outcome: o, Note: "noted"}, nil
	}
}

// mapSecrets is a SecretSource over a map.
type mapSecrets map[string]string

func (m mapSecrets) Has(n string) bool { return m[n] != "" }
func (m mapSecrets) Get(_ context.Context, n string) (string, bool) {
	v, ok := m[n]
	return v, ok && v != ""
}

type toolsFixture struct {
	srv   *server.MCPServer
	b     *Broker
	st    *store.Store
	appr  *brokerApprover
	home  string
	dbDir string
}

// newToolsFixture is a broker over a real store, attached to an MCP server
// built as the hub builds clawboo-tools, that sees no ambient secrets and
// a temporary home folder.
func newToolsFixture(t *testing.T) *toolsFixture {
	t.Helper()
	home := t.TempDir()
	dbDir := filepath.Join(home, ".clawboo")
	if err := os.MkdirAll(dbDir, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dbDir, "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	appr := &brokerApprover{}
	b := New(Options{Store: st, Approver: appr})
	srv := server.NewMCPServer("clawboo-tools", "test", server.WithToolCapabilities(false), server.WithRecovery(),
		server.WithToolFilter(b.Filter))
	b.Attach(srv)
	t.Cleanup(func() { b.Close(); st.Close() })
	appr.broker = b
	b.home = func() (string, error) { return home, nil }
	if err := b.Start(context.Background(), mapSecrets{}); err != nil {
		t.Fatal(err)
	}
	return &toolsFixture{srv: srv, b: b, st: st, appr: appr, home: home, dbDir: dbDir}
}

func (f *toolsFixture) audit(t *testing.T) []AuditEntry {
	t.Helper()
	rows, err := f.b.Audit(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func toolNames(t *testing.T, s *session) []string {
	t.Helper()
	ts, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range ts {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

func deniedCode(res *mcp.CallToolResult) string {
	if res == nil || res.Meta == nil {
		return ""
	}
	c, _ := res.Meta.AdditionalFields["denied"].(string)
	return c
}

func TestToolsListsOnlyAvailable(t *testing.T) {
	f := newToolsFixture(t)
	s := f.session(t, toolcall.Binding{})
	if got := toolNames(t, s); !slices.Equal(got, []string{"delete_path", "echo", "note", "web_fetch"}) {
		t.Fatal(got)
	}
	// An unavailable tool cannot be called either.
	if _, err := s.CallTool(context.Background(), "web_search", map[string]any{"query": "x"}); err == nil {
		t.Fatal("called an unavailable tool")
	}
	var search ToolInfo
	for _, ti := range f.b.List(context.Background()) {
		if ti.Name == "web_search" {
			search = ti
		}
	}
	if search.Available || !strings.Contains(search.Reason, "TAVILY_API_KEY") || search.Risk != RiskMedium {
		t.Fatalf("%+v", search)
	}
	// Configuring the key makes it appear.
	f.b.secrets.Store(&secretBox{mapSecrets{"TAVILY_API_KEY": "tvly-test"}})
	if got := toolNames(t, s); !slices.Contains(got, "web_search") {
		t.Fatal(got)
	}
	for _, ti := range f.b.List(context.Background()) {
		if !ti.Available || len(ti.InputSchema) == 0 || ti.Source != "builtin" {
			t.Fatalf("%+v", ti)
		}
	}
}

func TestToolsEchoAndNote(t *testing.T) {
	f := newToolsFixture(t)
	s := f.session(t, toolcall.Binding{TeamID: "team-a", AgentID: "alice"})
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "hello"})
	if got := callText(t, res, err); got != `{"message":"hello"}` || res.IsError {
		t.Fatal(got)
	}
	res, err = s.CallTool(context.Background(), "note", map[string]any{"note": "  remember the milk  "})
	var saved struct{ Saved string }
	if err := json.Unmarshal([]byte(callText(t, res, err)), &saved); err != nil || saved.Saved == "" {
		t.Fatal(err)
	}
	var note, agent, team string
	if err := f.st.Reader().QueryRow(`SELECT note, agent_id, team_id FROM tool_notes WHERE id = ?`, saved.Saved).Scan(&note, &agent, &team); err != nil {
		t.Fatal(err)
	}
	if note != "remember the milk" || agent != "alice" || team != "team-a" {
		t.Fatal(note, agent, team)
	}
	rows := f.audit(t)
	if len(rows) != 2 || rows[0].Tool != "note" || rows[1].Tool != "echo" {
		t.Fatalf("%+v", rows)
	}
	for _, r := range rows {
		if r.Decision != "allowed" || r.AgentID != "alice" || r.TeamID != "team-a" || r.Transport != "in-process" || r.Risk != "low" {
			t.Fatalf("%+v", r)
		}
	}
	if rows[1].Summary != `{"message":"hello"}` {
		t.Fatal(rows[1].Summary)
	}
	if len(f.appr.requests()) != 0 {
		t.Fatal("a low-risk tool asked a person")
	}
}

func TestToolsInvalidArgs(t *testing.T) {
	f := newToolsFixture(t)
	f.b.secrets.Store(&secretBox{mapSecrets{"TAVILY_API_KEY": "tvly-test"}})
	s := f.session(t, toolcall.Binding{})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", nil, "message is required"},
		{"echo", map[string]any{"message": 5}, "cannot unmarshal"},
		{"echo", map[string]any{"message": "x", "agentId": "mallory"}, "unknown field"},
		{"note", map[string]any{"note": "   "}, "note is required"},
		{"note", map[string]any{"note": strings.Repeat("n", maxNoteBytes+1)}, "over"},
		{"web_fetch", map[string]any{"url": "ftp://example.com/x"}, "only http and https"},
		{"web_fetch", map[string]any{"url": "http://user:pw@example.com/"}, "credentials"},
		{"web_fetch", map[string]any{"url": "http://127.0.0.1:8080/"}, "refused"},
		{"web_fetch", map[string]any{"url": "http://localhost/"}, "refused"},
		{"web_fetch", map[string]any{"url": "http://[::1]/"}, "refused"},
		{"web_fetch", map[string]any{"url": "http://169.254.169.254/latest/meta-data"}, "refused"},
		{"web_search", map[string]any{"query": "go", "limit": 50}, "limit must be"},
		{"web_search", map[string]any{"query": ""}, "query is required"},
		{"delete_path", map[string]any{"path": "relative/path"}, "absolute"},
		{"delete_path", map[string]any{}, "path is required"},
	} {
		res, err := s.CallTool(context.Background(), tc.tool, tc.args)
		text := callText(t, res, err)
		if !res.IsError || deniedCode(res) != "invalid_args" || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: %s (%s)", tc.tool, tc.args, text, deniedCode(res))
		}
	}
	for _, r := range f.audit(t) {
		if r.Decision != "denied" || !strings.HasPrefix(r.Detail, "invalid args") {
			t.Fatalf("%+v", r)
		}
	}
	if len(f.appr.requests()) != 0 {
		t.Fatal("invalid arguments reached a person")
	}
}

func TestToolsDeletePathAsksFirst(t *testing.T) {
	f := newToolsFixture(t)
	s := f.session(t, toolcall.Binding{TeamID: "team-a", AgentID: "alice"})
	junk := filepath.Join(f.home, "junk")
	mk := func() {
		if err := os.MkdirAll(junk, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(junk, "a.txt"), []byte("a"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	args := map[string]any{"path": junk, "why": "the build left it behind"}

	for _, tc := range []struct {
		name     string
		answer   func(ApprovalRequest) (ApprovalAnswer, error)
		code     string
		text     string
		decision string
		gone     bool
	}{
		{"deny", answerWith(ApprovalDenied), "approval_denied", "a person declined", "denied", false},
		{"expire", answerWith(ApprovalExpired), "approval_expired", "not approved in time", "expired", false},
		{"error", func(ApprovalRequest) (ApprovalAnswer, error) { return ApprovalAnswer{}, errors.New("queue closed") }, "approval_error", "not approved", "error", false},
		{"approve", answerWith(ApprovalApproved), "", `"deleted"`, "allowed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk()
			f.appr.mu.Lock()
			f.appr.answer, f.appr.asked = tc.answer, nil
			f.appr.mu.Unlock()
			res, err := s.CallTool(context.Background(), "delete_path", args)
			text := callText(t, res, err)
			if deniedCode(res) != tc.code || !strings.Contains(text, tc.text) || res.IsError == tc.gone {
				t.Fatalf("%s (%s)", text, deniedCode(res))
			}
			if exists(junk) == tc.gone {
				t.Fatalf("exists=%v", exists(junk))
			}
			reqs := f.appr.requests()
			if len(reqs) != 1 {
				t.Fatal(reqs)
			}
			r := reqs[0]
			realJunk, _ := filepath.EvalSymlinks(filepath.Dir(junk))
			if r.Tool != "delete_path" || r.Risk != RiskHigh || r.AgentID != "alice" || r.TeamID != "team-a" ||
				r.Reason != "the build left it behind" || !strings.Contains(r.Title, "Delete "+filepath.Join(realJunk, "junk")) ||
				!strings.Contains(r.Args, `"path"`) {
				t.Fatalf("%+v", r)
			}
			row := f.audit(t)[0]
			if row.Decision != tc.decision || row.Tool != "delete_path" || row.Risk != "high" {
				t.Fatalf("%+v", row)
			}
			if tc.name != "error" && row.ApprovalID != "appr-"+map[string]string{"deny": "denied", "expire": "expired", "approve": "approved"}[tc.name] {
				t.Fatalf("%+v", row)
			}
		})
	}
}

func TestToolsDeletePathBoundaries(t *testing.T) {
	f := newToolsFixture(t)
	f.appr.answer = answerWith(ApprovalApproved)
	s := f.session(t, toolcall.Binding{})
	outside := t.TempDir()
	secret := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(secret, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(f.home, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		f.home, f.home + "/", outside, secret, filepath.Join(link, "keep.txt"),
		f.dbDir, filepath.Join(f.dbDir, "clawboo.db"), filepath.Join(f.home, "nope"), filepath.Join(f.home, ".."),
	} {
		res, err := s.CallTool(context.Background(), "delete_path", map[string]any{"path": p})
		if text := callText(t, res, err); !res.IsError || deniedCode(res) != "invalid_args" {
			t.Errorf("%s: %s", p, text)
		}
	}
	if len(f.appr.requests()) != 0 {
		t.Fatal("a refused path reached a person")
	}
	// The link itself goes; what it points at stays.
	res, err := s.CallTool(context.Background(), "delete_path", map[string]any{"path": link})
	if text := callText(t, res, err); res.IsError {
		t.Fatal(text)
	}
	if _, err := os.Lstat(link); err == nil {
		t.Fatal("link still there")
	}
	if _, err := os.Stat(secret); err != nil {
		t.Fatal("followed the link:", err)
	}
}

// A medium-risk tool runs without asking.
func TestToolsMediumRiskDoesNotAsk(t *testing.T) {
	f := newToolsFixture(t)
	srv := newPageServer(t)
	f.b.fetch.allow = allowAll
	s := f.session(t, toolcall.Binding{AgentID: "alice"})
	res, err := s.CallTool(context.Background(), "web_fetch", map[string]any{"url": srv.URL + "/page"})
	if text := callText(t, res, err); res.IsError || !strings.Contains(text, "hello page") {
		t.Fatal(text)
	}
	if len(f.appr.requests()) != 0 {
		t.Fatal("asked")
	}
	if row := f.audit(t)[0]; row.Decision != "allowed" || row.Risk != "medium" {
		t.Fatalf("%+v", row)
	}
}

func TestToolsWithoutApproverRefuseHighRisk(t *testing.T) {
	b := New(Options{})
	home := t.TempDir()
	b.home = func() (string, error) { return home, nil }
	p := filepath.Join(home, "x")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"path": p})
	res := b.call(context.Background(), toolcall.Caller{}, "delete_path", raw)
	if deniedCode(res) != "approval_unavailable" {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	if res := b.call(context.Background(), toolcall.Caller{}, "nope", nil); deniedCode(res) != "unknown_tool" {
		t.Fatalf("%+v", res)
	}
	if res := b.call(context.Background(), toolcall.Caller{}, "note", []byte(`{"note":"x"}`)); deniedCode(res) != "unavailable" {
		t.Fatalf("%+v", res)
	}
	b.Close()
}

// A key in any argument reaches neither the audit table, the notes, the
// approval request nor any byte of the database file.
func TestToolsAuditIsScrubbed(t *testing.T) {
	const sentinel = "sk-ant-SENTINEL-0123456789abcdefXYZ"
	f := newToolsFixture(t)
	f.appr.answer = answerWith(ApprovalDenied)
	s := f.session(t, toolcall.Binding{AgentID: "alice"})
	victim := filepath.Join(f.home, "victim")
	if err := os.WriteFile(victim, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", maxAuditSummary-30) + sentinel // a cut must not leave half a key
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"message": "key " + sentinel}},
		{"echo", map[string]any{"message": long}},
		{"echo", map[string]any{"message": "x", "api_key": sentinel}},
		{"note", map[string]any{"note": "ANTHROPIC_API_KEY=" + sentinel}},
		{"delete_path", map[string]any{"path": victim, "why": "because " + sentinel}},
		{"delete_path", map[string]any{"path": "/" + sentinel}},
		{"web_fetch", map[string]any{"url": "http://127.0.0.1/?key=" + sentinel}},
	}
	for _, c := range calls {
		res, err := s.CallTool(context.Background(), c.tool, c.args)
		callText(t, res, err)
	}
	rows := f.audit(t)
	if len(rows) != len(calls) {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if strings.Contains(r.Summary+r.Detail, "SENTINEL") {
			t.Fatalf("%+v", r)
		}
	}
	for _, r := range f.appr.requests() {
		if strings.Contains(r.Title+r.Args+r.Reason, "SENTINEL") {
			t.Fatalf("%+v", r)
		}
	}
	if _, err := f.st.Writer().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"clawboo.db", "clawboo.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(f.dbDir, name))
		if strings.Contains(string(b), "SENTINEL") {
			t.Fatalf("the sentinel reached %s", name)
		}
	}
}

func TestSummarizeArgs(t *testing.T) {
	if got := summarizeArgs(json.RawMessage(`{"b": 1, "a": "x"}`)); got != `{"a":"x","b":1}` {
		t.Fatal(got)
	}
	if got := summarizeArgs(nil); got != "" {
		t.Fatal(got)
	}
	if got := summarizeArgs(json.RawMessage(`{"m":"` + strings.Repeat("é", 2000) + `"}`)); len(got) > maxAuditSummary || !strings.HasSuffix(got, "…") {
		t.Fatal(len(got))
	}
}
