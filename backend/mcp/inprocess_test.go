package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// The Session's transport skips a JSON round trip; what a caller gets back
// must be what mcp-go's own in-process transport gives, answer and error
// alike.
func TestInProcessTransportAnswersAsMCPGoDoes(t *testing.T) {
	h := newTestHub(t, Options{})
	ctx := context.Background()
	b := Binding{TeamID: "t1", AgentID: "a1", ReadOnly: true}
	s, err := h.Session(ctx, Tasks, b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref, err := client.NewInProcessClient(h.servers[Tasks])
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	refCtx := toolcall.WithCaller(ctx, Caller{Binding: b, Transport: "in-process"})
	if err := initClient(refCtx, ref); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"whoami", nil},
		{"whoami", map[string]any{"extra": 1}},        // invalid args: a tool error
		{"list_tasks", nil},                           // no board: a tool error
		{"create_task", map[string]any{"title": "x"}}, // hidden from a read-only session
		{"no_such_tool", nil},
	} {
		got, gotErr := s.CallTool(ctx, tc.name, tc.args)
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tc.name, tc.args
		want, wantErr := ref.CallTool(refCtx, req)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%s: error %v, mcp-go's %v", tc.name, gotErr, wantErr)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %s, mcp-go's %s", tc.name, gj, wj)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(ctx, "whoami", nil); err == nil {
		t.Fatal("a closed session answered")
	}
}
