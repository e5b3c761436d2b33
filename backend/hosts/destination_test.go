package hosts

import (
	"errors"
	"testing"
)

func TestParseDestination(t *testing.T) {
	for in, want := range map[string]string{
		"builder":                "builder",
		"me@build-1.lan":         "me@build-1.lan",
		"127.0.0.1:2222":         "ssh://127.0.0.1:2222",
		"me@127.0.0.1:2222":      "ssh://me@127.0.0.1:2222",
		"[::1]:2222":             "ssh://[::1]:2222",
		"  ops@gpu.example.com ": "ops@gpu.example.com",
	} {
		d, err := ParseDestination(in)
		if err != nil || d.Target != want {
			t.Errorf("%q: %+v %v, want target %q", in, d, err, want)
		}
	}
	for _, bad := range []string{
		"", "-oProxyCommand=touch /tmp/x", "me@-oProxyCommand=x", "host name", "a;b", "$(id)", "a`b`", "h'x", `h"x`,
		"me@", "@host", "host:0", "host:70000", "host:port", "a@b@c", "ho\nst", "x/../y", "h|x",
	} {
		if _, err := ParseDestination(bad); !errors.Is(err, ErrDestination) {
			t.Errorf("%q was not refused: %v", bad, err)
		}
	}
}
