package mcp

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A run's own token carries its run id to the session's caller (the
// tools broker names the run on an approval), with or without the signed
// query, which never names the run; an install-token session has none,
// and no URL can give it one.
func TestRunTokenCarriesTheRunID(t *testing.T) {
	h := newTestHub(t, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	run := Binding{AgentID: "alice", RunID: "01RUNID"}
	tok, revoke, err := h.IssueRunToken(run)
	if err != nil {
		t.Fatal(err)
	}
	defer revoke()
	if q, plain := h.Signer().Query(run), h.Signer().Query(Binding{AgentID: "alice"}); q != plain {
		t.Fatalf("the signed query names the run: %s", q)
	}
	a, revokeAttach, err := h.AttachRun(srv.URL, run)
	if err != nil {
		t.Fatal(err)
	}
	defer revokeAttach()
	for name, u := range a.URLs {
		if strings.Contains(u, "01RUNID") {
			t.Fatalf("%s's URL names the run: %s", name, u)
		}
	}
	want := `{"agentId":"alice","runId":"01RUNID","Transport":"http"}`
	for _, c := range []struct{ tok, url string }{
		{tok, srv.URL + "/mcp/tools"},
		{tok, srv.URL + "/mcp/tools?" + h.Signer().Query(run)},
	} {
		sid := openSession(t, c.url, c.tok)
		if code, got := whoami(t, c.url, c.tok, sid); got != want {
			t.Fatalf("%s: %d %s, want %s", c.url, code, got, want)
		}
	}
	url := srv.URL + "/mcp/tools?" + h.Signer().Query(Binding{AgentID: "alice"}) + "&runId=01FORGED&run=01FORGED"
	sid := openSession(t, url, testToken)
	if _, got := whoami(t, url, testToken, sid); got != `{"agentId":"alice","Transport":"http"}` {
		t.Fatalf("an install-token session: %s", got)
	}
}
