package vault

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// writeDotEnv writes an OpenClaw .env at path, creating its folder.
func writeDotEnv(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestResolveOrderEnvVaultOpenClaw(t *testing.T) {
	const name = "ANTHROPIC_API_KEY"
	cases := []struct {
		name            string
		env, vault, dot string
		want            string
		src             Source
	}{
		{"env wins over all", "  from-env  ", "from-vault", "from-dot", "from-env", SourceEnv},
		{"blank env is ignored", "   ", "from-vault", "from-dot", "from-vault", SourceVault},
		{"vault over .env", "", "from-vault", "from-dot", "from-vault", SourceVault},
		{".env last", "", "", "from-dot", "from-dot", SourceOpenClaw},
		{"nothing", "", "", "", "", SourceNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			state := filepath.Join(home, "oc")
			e := env{"OPENCLAW_STATE_DIR": state}
			if tc.env != "" {
				e[name] = tc.env
			}
			v := openVault(t, home, e, Options{ForceFile: true})
			if tc.vault != "" {
				mustSet(t, v, name, tc.vault)
			}
			if tc.dot != "" {
				writeDotEnv(t, filepath.Join(state, ".env"), name+"="+tc.dot+"\n")
			}
			if got := v.Presence("claude-code", name); got != tc.src {
				t.Errorf("Presence = %q, want %q", got, tc.src)
			}
			s, src := v.Resolve(t.Context(), "claude-code", name)
			if s != tc.want || src != tc.src {
				t.Errorf("Resolve = %q %q, want %q %q", s, src, tc.want, tc.src)
			}
		})
	}
}

func TestDisconnectOverrideBothDirections(t *testing.T) {
	const name = "OPENAI_API_KEY"
	home := t.TempDir()
	state := filepath.Join(home, "oc")
	e := env{"OPENCLAW_STATE_DIR": state, name: "ambient-env"}
	writeDotEnv(t, filepath.Join(state, ".env"), name+"=from-dot\n")
	changes := 0
	v := openVault(t, home, e, Options{ForceFile: true, OnChange: func() { changes++ }})

	if err := v.SetDisconnected("codex", true); err != nil {
		t.Fatal(err)
	}
	if !v.Disconnected("codex") || v.Disconnected("claude-code") || changes != 1 {
		t.Fatalf("override not recorded (changes %d)", changes)
	}
	// Ambient env and .env must not re-credential a disconnected runtime.
	if s, src := v.Resolve(t.Context(), "codex", name); src != SourceNone || s != "" {
		t.Fatalf("disconnected runtime resolved %q from %q", s, src)
	}
	if src := v.Presence("codex", name); src != SourceNone {
		t.Fatalf("disconnected Presence %q", src)
	}
	// Other runtimes keep the full chain.
	if _, src := v.Resolve(t.Context(), "claude-code", name); src != SourceEnv {
		t.Fatalf("other runtime: %q", src)
	}
	// The vault still counts for the disconnected runtime.
	mustSet(t, v, name, "from-vault")
	if s, src := v.Resolve(t.Context(), "codex", name); s != "from-vault" || src != SourceVault {
		t.Fatalf("vault-only resolution: %q %q", s, src)
	}
	// Persisted in the reference format, and read back at the next start.
	data, _ := os.ReadFile(filepath.Join(home, "secrets", disconnectedFile))
	var m map[string]bool
	if err := json.Unmarshal(data, &m); err != nil || !m["codex"] || len(m) != 1 {
		t.Fatalf("%s = %s (%v)", disconnectedFile, data, err)
	}
	_ = v.Close()
	v2 := openVault(t, home, e, Options{ForceFile: true})
	if !v2.Disconnected("codex") {
		t.Fatal("override lost across restarts")
	}
	// Connect clears it: the full chain is back.
	if err := v2.SetDisconnected("codex", false); err != nil {
		t.Fatal(err)
	}
	if s, src := v2.Resolve(t.Context(), "codex", name); s != "ambient-env" || src != SourceEnv {
		t.Fatalf("after reconnect: %q %q", s, src)
	}
	if err := v2.SetDisconnected("", true); err == nil {
		t.Fatal("an empty runtime id was accepted")
	}
}

func TestOpenClawDotEnvParsing(t *testing.T) {
	const file = `# comment: ANTHROPIC_API_KEY=from-comment
   # indented comment
NOEQUALS
GROQ_API_KEY=
GROQ_API_KEY   =   gsk-second   
  GROQ_API_KEY=gsk-third
OPENAI_API_KEY="quoted-kept"
export XAI_API_KEY=exported
MISTRAL_API_KEY=a=b=c
TOGETHER_API_KEY=$HOME/expansion-not-done
CEREBRAS_API_KEY=crlf` + "\r\n"
	cases := []struct {
		name, want string
	}{
		{"ANTHROPIC_API_KEY", ""},           // only in a comment
		{"GROQ_API_KEY", "gsk-second"},      // first non-empty wins, trimmed
		{"OPENAI_API_KEY", `"quoted-kept"`}, // no quote stripping
		{"XAI_API_KEY", ""},                 // "export XAI_API_KEY" is a different key
		{"MISTRAL_API_KEY", "a=b=c"},        // split at the first =
		{"TOGETHER_API_KEY", "$HOME/expansion-not-done"},
		{"CEREBRAS_API_KEY", "crlf"},
	}
	home := t.TempDir()
	state := filepath.Join(home, "custom-state")
	writeDotEnv(t, filepath.Join(state, ".env"), file)
	v := openVault(t, home, env{"OPENCLAW_STATE_DIR": state}, Options{ForceFile: true})
	if got := v.OpenClawEnvPath(); got != filepath.Join(state, ".env") {
		t.Fatalf("OpenClawEnvPath = %s", got)
	}
	for _, tc := range cases {
		s, src := v.Resolve(t.Context(), "clawboo-native", tc.name)
		if s != tc.want || (tc.want != "") != (src == SourceOpenClaw) {
			t.Errorf("%s: %q %q, want %q", tc.name, s, src, tc.want)
		}
		if (v.Presence("clawboo-native", tc.name) == SourceOpenClaw) != (tc.want != "") {
			t.Errorf("%s: Presence disagrees with Resolve", tc.name)
		}
	}
}

func TestOpenClawDotEnvChangesAreSeen(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "userhome", ".openclaw", ".env")
	v := openVault(t, home, nil, Options{ForceFile: true})
	if v.Presence("x", "GROQ_API_KEY") != SourceNone {
		t.Fatal("no file yet")
	}
	writeDotEnv(t, path, "GROQ_API_KEY=gsk-1\n")
	if v.Presence("x", "GROQ_API_KEY") != SourceOpenClaw {
		t.Fatal("a new file must be seen")
	}
	// Replace it atomically with the same size: the identity check catches it.
	tmp := path + ".tmp"
	writeDotEnv(t, tmp, "GROQ_API_KEY=\nX=yy\n") // 19 bytes, as before
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if v.Presence("x", "GROQ_API_KEY") != SourceNone {
		t.Fatal("a replaced file must be re-read")
	}
}

func TestOpenClawStateDirPrecedence(t *testing.T) {
	cases := []struct {
		name   string
		env    env
		mkdirs []string
		want   string
	}{
		{"OPENCLAW_STATE_DIR first", env{"OPENCLAW_STATE_DIR": "/a", "MOLTBOT_STATE_DIR": "/b", "CLAWDBOT_STATE_DIR": "/c"}, nil, "/a/.env"},
		{"MOLTBOT_STATE_DIR next", env{"MOLTBOT_STATE_DIR": "/b", "CLAWDBOT_STATE_DIR": "/c"}, nil, "/b/.env"},
		{"CLAWDBOT_STATE_DIR next", env{"CLAWDBOT_STATE_DIR": "/c"}, nil, "/c/.env"},
		{"tilde expands", env{"OPENCLAW_STATE_DIR": "~/oc"}, nil, "H/oc/.env"},
		{"default ~/.openclaw", env{}, nil, "H/.openclaw/.env"},
		{"legacy when only it exists", env{}, []string{".clawdbot"}, "H/.clawdbot/.env"},
		{"moltbot legacy", env{}, []string{".moltbot"}, "H/.moltbot/.env"},
		{"openclaw beats legacy", env{}, []string{".openclaw", ".clawdbot"}, "H/.openclaw/.env"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := t.TempDir()
			for _, d := range tc.mkdirs {
				_ = os.Mkdir(filepath.Join(h, d), 0o700)
			}
			tc.env["HOME"] = h
			want := filepath.FromSlash(tc.want)
			if want[0] == 'H' {
				want = filepath.Join(h, want[1:])
			}
			if got := openClawEnvPath(tc.env.get); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		})
	}
	if got := openClawEnvPath(env{}.get); got != "" {
		t.Fatalf("no home: %q", got)
	}
}
