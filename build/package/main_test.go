package main

import (
	"os/exec"
	"testing"
)

func TestDebVersion(t *testing.T) {
	for _, c := range []struct{ git, want string }{
		{"v1.2.3", "1.2.3"},
		{"1.2.3", "1.2.3"},
		{"v1.2.3-dirty", "1.2.3+dirty"},
		{"v1.2.3-rc.1", "1.2.3~rc.1"},
		{"v1.2.3-rc1-5-gabc1234", "1.2.3~rc1+git20261202.5.abc1234"},
		{"v1.2.3-5-gabc1234", "1.2.3+git20261202.5.abc1234"},
		{"v1.2.3-5-gabc1234-dirty", "1.2.3+git20261202.5.abc1234.dirty"},
		{"a3db035", "0.0.0~git20261202.a3db035"},
		{"a3db035-dirty", "0.0.0~git20261202.a3db035.dirty"},
	} {
		got, err := DebVersion(c.git, "20261202")
		if err != nil || got != c.want {
			t.Errorf("DebVersion(%q) = %q, %v; want %q", c.git, got, err, c.want)
		}
	}
	for _, bad := range []string{"dev", "", "release-one", "v1.2.3-5-gxyz"} {
		if v, err := DebVersion(bad, "20261202"); err == nil {
			t.Errorf("DebVersion(%q) = %q, want an error", bad, v)
		}
	}
}

// TestDebVersionOrder checks with dpkg itself that the versions sort in
// release order.
func TestDebVersionOrder(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("no dpkg")
	}
	order := [][2]string{
		{"a3db035", "20261201"},
		{"b4ec146", "20261202"},
		{"b4ec146-dirty", "20261202"},
		{"v0.1.0-rc.1", "20261203"},
		{"v0.1.0", "20261203"},
		{"v0.1.0-dirty", "20261203"},
		{"v0.1.0-1-gc5fd257", "20261204"},
		{"v0.1.0-12-gd60e368", "20261204"},
		{"v0.1.1", "20261205"},
	}
	prev := ""
	for _, o := range order {
		v, err := DebVersion(o[0], o[1])
		if err != nil {
			t.Fatal(err)
		}
		if prev != "" {
			if out, err := exec.Command("dpkg", "--compare-versions", prev, "lt", v).CombinedOutput(); err != nil {
				t.Errorf("dpkg: %s is not before %s (%v %s)", prev, v, err, out)
			}
		}
		prev = v
	}
}
