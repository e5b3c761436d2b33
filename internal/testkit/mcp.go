package testkit

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// MCPVersion is the protocol version the tests' MCP client speaks: one with
// sessions (initialize and Mcp-Session-Id), as the CLIs speak it.
const MCPVersion = "2025-06-18"

// MCPInitialize is an initialize request's body.
const MCPInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + MCPVersion +
	`","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// MCPPost is one request to a Streamable HTTP MCP endpoint with a bearer
// token ("" for none) and a session id ("" for none), as a client with that
// token would send it. It returns the status, the session id the server
// answered with, and the body (a GET that opened a stream is read no
// further than its headers). The request is bounded by 20 s.
func MCPPost(t testing.TB, method, url, token, sid, body string) (code int, newSid, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", MCPVersion)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b []byte
	if method != http.MethodGet || resp.StatusCode != http.StatusOK {
		b, _ = io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// MCPOpen sends initialize to url with token: the status and the session
// id the server opened.
func MCPOpen(t testing.TB, url, token string) (code int, sid string) {
	t.Helper()
	code, sid, _ = MCPPost(t, http.MethodPost, url, token, "", MCPInitialize)
	return code, sid
}

// MCPCall calls tool name with args in session sid: the status, the
// result's text (its content joined, JSON-unescaped; the body when the
// answer is not a result) and the result's isError.
func MCPCall(t testing.TB, url, token, sid, name string, args map[string]any) (code int, text string, isError bool) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args},
	})
	code, _, text = MCPPost(t, http.MethodPost, url, token, sid, string(body))
	if i := strings.Index(text, "data: "); i >= 0 { // an SSE answer
		text = strings.TrimSpace(text[i+len("data: "):])
	}
	var rpc struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	if json.Unmarshal([]byte(text), &rpc) == nil && len(rpc.Result.Content) > 0 {
		var b strings.Builder
		for _, c := range rpc.Result.Content {
			b.WriteString(c.Text)
		}
		return code, b.String(), rpc.Result.IsError
	}
	return code, text, false
}

var bearerRe = regexp.MustCompile(`Bearer ([A-Za-z0-9_-]{20,})`)

// BearerIn is the first bearer token in an attach configuration's text.
func BearerIn(text string) string {
	if m := bearerRe.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}
