package config

import (
	"path/filepath"
	"testing"
	"time"
)

func env(m map[string]string) Getenv { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	tmp := t.TempDir()
	cases := []struct {
		name       string
		flag       string
		env        map[string]string
		wantHome   string
		wantMock   bool
		wantMockWT bool
		wantIdle   time.Duration
		wantErr    bool
	}{
		{name: "default home", env: map[string]string{"HOME": tmp}, wantHome: filepath.Join(tmp, ".clawboo"), wantIdle: DefaultIdleLimit},
		{name: "env home", env: map[string]string{"HOME": "/x", EnvHome: tmp + "/h"}, wantHome: tmp + "/h", wantIdle: DefaultIdleLimit},
		{name: "flag wins", flag: tmp + "/f", env: map[string]string{EnvHome: tmp + "/h"}, wantHome: tmp + "/f", wantIdle: DefaultIdleLimit},
		{name: "mock exactly 1", flag: tmp, env: map[string]string{EnvEnableMock: "1"}, wantHome: tmp, wantMock: true, wantIdle: DefaultIdleLimit},
		{name: "mock true is not 1", flag: tmp, env: map[string]string{EnvEnableMock: "true"}, wantHome: tmp, wantIdle: DefaultIdleLimit},
		{name: "mock 1 with space", flag: tmp, env: map[string]string{EnvEnableMock: " 1"}, wantHome: tmp, wantIdle: DefaultIdleLimit},
		{name: "mock worktrees exactly 1", flag: tmp, env: map[string]string{EnvEnableMock: "1", EnvMockWorktrees: "1"}, wantHome: tmp, wantMock: true, wantMockWT: true, wantIdle: DefaultIdleLimit},
		{name: "mock worktrees true is not 1", flag: tmp, env: map[string]string{EnvEnableMock: "1", EnvMockWorktrees: "true"}, wantHome: tmp, wantMock: true, wantIdle: DefaultIdleLimit},
		{name: "idle duration", flag: tmp, env: map[string]string{EnvIdleTimeout: "90s"}, wantHome: tmp, wantIdle: 90 * time.Second},
		{name: "idle millis", flag: tmp, env: map[string]string{EnvIdleTimeout: "250"}, wantHome: tmp, wantIdle: 250 * time.Millisecond},
		{name: "idle garbage", flag: tmp, env: map[string]string{EnvIdleTimeout: "soon"}, wantErr: true},
		{name: "idle negative", flag: tmp, env: map[string]string{EnvIdleTimeout: "-5s"}, wantErr: true},
		{name: "idle zero", flag: tmp, env: map[string]string{EnvIdleTimeout: "0"}, wantErr: true},
		{name: "vault garbage", flag: tmp, env: map[string]string{EnvVault: "cloud"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.flag, env(tc.env))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want error, got %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Home != tc.wantHome || c.EnableMock != tc.wantMock || c.MockWorktrees != tc.wantMockWT || c.IdleTimeout != tc.wantIdle {
				t.Fatalf("got %+v", c)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	c := Config{Home: "/h"}
	if c, err := Load("/h", env(map[string]string{EnvVault: "file"})); err != nil || !c.FileVault {
		t.Fatal(c, err)
	}
	if c.DBPath() != "/h/clawboo.db" || c.PortFile() != "/h/api-port.txt" {
		t.Fatal(c.DBPath(), c.PortFile())
	}
	if got := RuntimeHome("/h", "codex"); got != "/h/runtimes/codex" {
		t.Fatal(got)
	}
}
