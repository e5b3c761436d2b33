package api

import (
	"net/http"
	"strings"
	"testing"
)

// The secrets routes take values in and give names out; a refused name or
// value is a 400 in words that never echo what was pasted.
func TestSecretsRoutesAreNamesOut(t *testing.T) {
	f := newFixture(t, nil)
	const value = "rk_test_API_SENTINEL_77"
	if code, _, body := f.do(t, "PUT", "/api/secrets/STRIPE_KEY", `{"value":"`+value+`"}`); code != http.StatusOK || strings.Contains(string(body), value) {
		t.Fatalf("put: %d %s", code, body)
	}
	code, _, body := f.do(t, "GET", "/api/secrets", "")
	if code != http.StatusOK || string(body) != `{"backend":"file","secrets":[{"name":"STRIPE_KEY"}]}`+"\n" {
		t.Fatalf("list: %d %s", code, body)
	}
	for _, c := range []struct{ path, body, want string }{
		{"/api/secrets/PATH", `{"value":"abcd"}`, "PATH is a variable Clawboo sets"},
		{"/api/secrets/LD_PRELOAD", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/OPENAI_API_KEY", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/OPENROUTER_API_KEY", `{"value":"abcd"}`, "a provider key's name"},
		// Names that change how programs behave (issue 26 §2.5b).
		{"/api/secrets/GCONV_PATH", `{"value":"abcd"}`, "GCONV_PATH is a variable Clawboo sets or a program reads"},
		{"/api/secrets/OPENSSL_CONF", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/MAKEFLAGS", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/PROMPT_COMMAND", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/EDITOR", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/PAGER", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/CC", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/CURL_HOME", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/WGETRC", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/MALLOC_CHECK_", `{"value":"abcd"}`, "variable Clawboo sets"},
		{"/api/secrets/rk_test_pasted", `{"value":"abcd"}`, "environment variable name"},
		{"/api/secrets/SHORT", `{"value":"abc"}`, "shorter than 4"},
		{"/api/secrets/EMPTY", `{}`, "value is required"},
	} {
		code, _, body := f.do(t, "PUT", c.path, c.body)
		if code != http.StatusBadRequest || !strings.Contains(errorOf(t, body), c.want) || strings.Contains(string(body), "pasted") {
			t.Errorf("%s: %d %s, want %q", c.path, code, body, c.want)
		}
	}
	if code, _, body := f.do(t, "POST", "/api/board", `{"title":"t","kind":"research","secrets":["NOPE"]}`); code != http.StatusBadRequest ||
		!strings.Contains(errorOf(t, body), "NOPE is not in the vault") {
		t.Fatalf("unknown secret on a task: %d %s", code, body)
	}
	code, _, body = f.do(t, "POST", "/api/board", `{"title":"t","kind":"research","secrets":["STRIPE_KEY"]}`)
	if code != http.StatusCreated || !strings.Contains(string(body), `"secrets":["STRIPE_KEY"]`) || strings.Contains(string(body), value) {
		t.Fatalf("task: %d %s", code, body)
	}
	if code, _, _ := f.do(t, "DELETE", "/api/secrets/STRIPE_KEY", ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	if _, _, body := f.do(t, "GET", "/api/secrets", ""); !strings.Contains(string(body), `"secrets":[]`) {
		t.Fatalf("after delete: %s", body)
	}
}
