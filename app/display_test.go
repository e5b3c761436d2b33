package app

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDisplay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantErr bool
	}{
		{"none", map[string]string{}, true},
		{"empty values", map[string]string{"DISPLAY": "", "WAYLAND_DISPLAY": ""}, true},
		{"x11", map[string]string{"DISPLAY": ":99"}, false},
		{"wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDisplay(func(k string) string { return tc.env[k] })
			if got := err != nil; got != tc.wantErr {
				t.Fatalf("checkDisplay error = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && (!errors.Is(err, ErrNoDisplay) ||
				!strings.Contains(err.Error(), "display") || !strings.Contains(err.Error(), "clawboo serve")) {
				t.Fatalf("error %q must name the missing display and point at `clawboo serve`", err)
			}
		})
	}
}
