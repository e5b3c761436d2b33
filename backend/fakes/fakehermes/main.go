// Command fakehermes stands in for Hermes Agent's `hermes` CLI, whose
// package registry (PyPI) is unreachable here, so the hermes adapter is
// tested against a real child process that behaves like the documented
// quiet single-query mode:
//
//	hermes chat -q <query> -Q [--yolo] [--accept-hooks] [-m M] [--resume ID] [--provider P]
//
// What it reproduces (hermes_cli's quiet single-query runner):
//   - stdout carries only the final response, printed when the turn ends;
//   - stderr ends with a blank line and `session_id: <id>`;
//   - the exit code is the result: 0 completed, 1 failed (an
//     `Error: <message>` line on stderr when there is no response), 130
//     interrupted;
//   - SIGINT, SIGTERM and SIGHUP interrupt the turn: after
//     HERMES_SIGTERM_GRACE seconds (Hermes's default is 1.5, the fake's
//     0.05 to keep tests quick) it prints the session line and exits 130;
//   - a credentials failure (no usable provider key) exits 1 with no
//     session line;
//   - sessions persist in $HERMES_HOME (default ~/.hermes) and --resume of
//     an unknown id fails; unknown flags are an argparse error (exit 2).
//
// Tests script it through the query text: lines starting with `!` are
// directives (see directives.go). Every invocation is appended to
// $HERMES_HOME/fakehermes.jsonl, with provider keys only as hashes: the
// fake never prints or stores a key.
package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// keyVars maps the providers the fake knows to their key variables.
var keyVars = map[string]string{
	"openrouter": "OPENROUTER_API_KEY",
	"anthropic":  "ANTHROPIC_API_KEY",
	"openai-api": "OPENAI_API_KEY",
}

// autoOrder is the order `auto` tries keys in.
var autoOrder = []string{"openrouter", "anthropic", "openai-api"}

type invocation struct {
	Query, Model, Resume, Provider string
	Quiet, Yolo, AcceptHooks       bool
}

// out serialises writes so an interrupt's session line never lands in the
// middle of a reply line.
var out sync.Mutex

func say(f *os.File, s string) {
	out.Lock()
	defer out.Unlock()
	_, _ = f.WriteString(s)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "__sleep" { // a grandchild for process-group tests
		time.Sleep(time.Hour)
		return
	}
	os.Exit(run(os.Args[1:]))
}

func parseArgs(args []string) (invocation, error) {
	var inv invocation
	if len(args) == 0 || args[0] != "chat" {
		return inv, fmt.Errorf("the fake supports only the chat command")
	}
	value := func(i *int, flag string) (string, error) {
		if *i+1 >= len(args) {
			return "", fmt.Errorf("argument %s: expected one argument", flag)
		}
		*i++
		return args[*i], nil
	}
	for i := 1; i < len(args); i++ {
		var err error
		switch a := args[i]; a {
		case "-q", "--query":
			inv.Query, err = value(&i, a)
		case "-m", "--model":
			inv.Model, err = value(&i, a)
		case "-r", "--resume":
			inv.Resume, err = value(&i, a)
		case "--provider":
			inv.Provider, err = value(&i, a)
		case "-Q", "--quiet":
			inv.Quiet = true
		case "--yolo":
			inv.Yolo = true
		case "--accept-hooks":
			inv.AcceptHooks = true
		default:
			err = fmt.Errorf("unrecognized arguments: %s", a)
		}
		if err != nil {
			return inv, err
		}
	}
	if inv.Query == "" || !inv.Quiet {
		return inv, fmt.Errorf("the fake supports only quiet single-query mode (chat -q QUERY -Q)")
	}
	return inv, nil
}

func run(args []string) int {
	inv, err := parseArgs(args)
	if err != nil {
		say(os.Stderr, "usage: hermes chat [-q QUERY] [-Q] [-m MODEL] [--provider PROVIDER] [--resume SESSION_ID] [--yolo] [--accept-hooks]\nhermes: error: "+err.Error()+"\n")
		return 2
	}
	home := os.Getenv("HERMES_HOME")
	if home == "" {
		home = filepath.Join(os.Getenv("HOME"), ".hermes")
	}
	script := parseScript(inv.Query)
	if script.stubborn {
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	}

	provider, code := resolveProvider(inv, home)
	if code != 0 {
		return code
	}
	sess, err := openSession(home, inv.Resume)
	if err != nil {
		say(os.Stderr, "Error: "+err.Error()+"\n")
		return 1
	}
	sess.Queries = append(sess.Queries, inv.Query)
	if err := sess.save(home); err != nil {
		say(os.Stderr, "Error: session not saved: "+err.Error()+"\n")
		return 1
	}
	logInvocation(home, inv, provider, sess.ID)

	if !script.stubborn {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			<-sigs
			grace := 0.05
			if v, err := strconv.ParseFloat(os.Getenv("HERMES_SIGTERM_GRACE"), 64); err == nil {
				grace = v
			}
			time.Sleep(time.Duration(grace * float64(time.Second)))
			say(os.Stderr, "\nsession_id: "+sess.ID+"\n")
			os.Exit(130)
		}()
	}
	st := &state{inv: inv, provider: provider, home: home, sess: sess}
	return st.play(script)
}

// resolveProvider picks the provider as Hermes does for a run: the flag,
// else the config's model.provider, else the first key present. A
// provider whose key is missing is a credentials failure (exit 1, no
// session line).
func resolveProvider(inv invocation, home string) (string, int) {
	p := inv.Provider
	if p == "" {
		p = configProvider(filepath.Join(home, "config.yaml"))
	}
	if p == "" || p == "auto" {
		for _, c := range autoOrder {
			if os.Getenv(keyVars[c]) != "" {
				return c, 0
			}
		}
		say(os.Stderr, "No inference provider configured. Run 'hermes model' to choose a provider and model.\n")
		return "", 1
	}
	if v, known := keyVars[p]; known && os.Getenv(v) == "" {
		say(os.Stderr, fmt.Sprintf("Provider '%s' is selected but %s is not set.\n", p, v))
		return "", 1
	}
	return p, 0
}

// configProvider reads model.provider from a config.yaml the simple way
// (the fake only needs the block form Hermes writes).
func configProvider(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	inModel := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			inModel = strings.TrimSpace(line) == "model:"
			continue
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); inModel && ok && k == "provider" {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

type session struct {
	ID      string   `json:"id"`
	Queries []string `json:"queries"`
}

func sessionPath(home, id string) string { return filepath.Join(home, "sessions", id+".json") }

func openSession(home, resume string) (*session, error) {
	if resume == "" {
		var r [3]byte
		_, _ = rand.Read(r[:])
		return &session{ID: time.Now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(r[:])}, nil
	}
	if strings.ContainsAny(resume, `/\`) {
		return nil, fmt.Errorf("session '%s' not found", resume)
	}
	b, err := os.ReadFile(sessionPath(home, resume))
	if err != nil {
		return nil, fmt.Errorf("session '%s' not found", resume)
	}
	var s session
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("session '%s' is unreadable", resume)
	}
	return &s, nil
}

func (s *session) save(home string) error {
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(s)
	return os.WriteFile(sessionPath(home, s.ID), b, 0o600)
}

// keyHash is how the fake shows a key: a short hash, never the key.
func keyHash(v string) string {
	if v == "" {
		return "unset"
	}
	h := sha256.Sum256([]byte(v))
	return "sha256:" + hex.EncodeToString(h[:6])
}

// envNames are the names in the fake's environment, sorted.
func envNames() []string {
	var names []string
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

func logInvocation(home string, inv invocation, provider, session string) {
	cwd, _ := os.Getwd()
	keys := map[string]string{}
	for _, v := range keyVars {
		keys[v] = keyHash(os.Getenv(v))
	}
	rec := map[string]any{
		"argv": os.Args[1:], "cwd": cwd, "pid": os.Getpid(), "flagProvider": inv.Provider, "provider": provider,
		"model": inv.Model, "resume": inv.Resume, "session": session, "yolo": inv.Yolo, "acceptHooks": inv.AcceptHooks,
		"keys": keys, "env": envNames(),
	}
	b, _ := json.Marshal(rec)
	f, err := os.OpenFile(filepath.Join(home, "fakehermes.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}
