package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The official TypeScript SDK (@modelcontextprotocol/sdk, from npm) lists
// and calls tools on the Tasks server of a real `clawboo serve`, with the
// attach token from `clawboo mcp config`; without the token it is refused.
func TestTypeScriptSDKClient(t *testing.T) {
	script := testCLIs(t, "sdk-client.mjs")
	s := startServe(t, []string{"CLAWBOO_VAULT=file"}, "--addr", "127.0.0.1:0")
	_, b := s.post(t, "/api/board", `{"title":"seen by the sdk"}`)
	if !strings.Contains(string(b), "seen by the sdk") {
		t.Fatal(string(b))
	}
	_, servers := mcpConfig(t, s.home)
	tasks := servers["clawboo-tasks"]
	token := strings.TrimPrefix(tasks.Headers["Authorization"], "Bearer ")
	if tasks.URL == "" || token == "" {
		t.Fatalf("%+v", servers)
	}
	run := func(token string) (map[string]any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "node", script, tasks.URL, token, "list_tasks", `{}`).Output()
		var got map[string]any
		if jerr := json.Unmarshal(out, &got); jerr != nil {
			t.Fatalf("sdk client printed %q: %v", out, jerr)
		}
		return got, err
	}
	got, err := run(token)
	if err != nil {
		t.Fatalf("%v: %v", err, got)
	}
	var names []string
	for _, n := range got["tools"].([]any) {
		names = append(names, n.(string))
	}
	for _, want := range []string{"list_tasks", "get_task", "create_task", "claim_task", "link_task"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	res, _ := json.Marshal(got["result"])
	if !strings.Contains(string(res), "seen by the sdk") || strings.Contains(string(res), `"isError":true`) {
		t.Fatalf("list_tasks through the SDK: %s", res)
	}
	if srv, _ := json.Marshal(got["server"]); !strings.Contains(string(srv), "clawboo-tasks") {
		t.Errorf("server info %s", srv)
	}
	// A wrong token: the SDK reports our 401's message.
	got, err = run("not-the-token")
	if msg, _ := got["error"].(string); err == nil || !strings.Contains(msg, "missing, wrong or expired attach token") {
		t.Fatalf("wrong token: %v %v", err, got)
	}
}
