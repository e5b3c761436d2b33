package mcp

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
)

// The broker's own tests (backend/mcp/toolbroker) drive it in-process;
// this one checks the hub's part: over HTTP, with the attach token and a
// signed binding, the audit row names the agent the binding names.
func TestToolsOverHTTP(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, err := New(Options{Token: testToken, BindingKey: []byte("test-binding-key-0123456789"), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if err := h.Tools().Start(context.Background(), noSecrets{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	c, err := httpClient(t, srv.URL+"/mcp/tools?"+h.Signer().Query(Binding{TeamID: "t1", AgentID: "bob"}), auth)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(res.Tools) != 4 { // echo, note, delete_path, web_fetch
		t.Fatalf("%+v %v", res, err)
	}
	if got := mustCall(t, c, "echo", map[string]any{"message": "over http"}); got != `{"message":"over http"}` {
		t.Fatal(got)
	}
	rows, err := h.Tools().Audit(context.Background(), 10)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
	if row := rows[0]; row.AgentID != "bob" || row.TeamID != "t1" || row.Transport != "http" {
		t.Fatalf("%+v", row)
	}
}

// noSecrets is a vault with nothing in it (web_search stays unlisted).
type noSecrets struct{}

func (noSecrets) Has(string) bool                            { return false }
func (noSecrets) Get(context.Context, string) (string, bool) { return "", false }
