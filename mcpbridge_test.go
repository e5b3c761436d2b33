package main

import (
	"bytes"
	"strings"
	"testing"
)

// The command refuses a missing URL (usage, 2) and an unusable one (1, in
// words, the token never quoted); the bridge itself is tested in
// backend/mcp/stdiobridge and end to end in backend (acp_bridge_test.go).
func TestMCPBridgeCommandRefusals(t *testing.T) {
	var out, errb bytes.Buffer
	if code := mcpBridge(nil, func(string) string { return "" }, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "expected one argument") {
		t.Fatalf("no URL: %d %q", code, errb.String())
	}
	errb.Reset()
	getenv := func(k string) string {
		if k == "CLAWBOO_MCP_TOKEN" {
			return "tok-0123456789abcdef-secret"
		}
		return ""
	}
	if code := mcpBridge([]string{"ftp://127.0.0.1/mcp"}, getenv, strings.NewReader(""), &out, &errb); code != 1 || errb.Len() == 0 ||
		strings.Contains(errb.String(), "tok-0123456789abcdef-secret") {
		t.Fatalf("a bad URL: %d %q", code, errb.String())
	}
	if out.Len() != 0 {
		t.Fatalf("stdout: %q", out.String())
	}
}
