package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Directives, one per line of the query (leading spaces allowed; other
// lines are the prompt and ignored):
//
//	!reply TEXT        a line of the final response (default response: "ok")
//	!write PATH TEXT   write TEXT (\n escapes) to PATH under the working folder
//	!sleep MS          wait before answering
//	!stream N MS       print N lines at once, MS apart, before the final response
//	!hang              never answer (signals still interrupt)
//	!stubborn          ignore SIGINT, SIGTERM and SIGHUP
//	!fail MSG          fail the turn: "Error: MSG" on stderr, exit 1
//	!exit N            exit N after printing the response and session line
//	!crash             a Python traceback on stderr, exit 1, no session line
//	!killed            die by SIGKILL
//	!silent            answer nothing: no response, but the session line, exit 0
//	!flood N           N lines of 1 KiB on stdout (0: until stopped)
//	!grandchild        start a process in the same group; print "grandchild=PID"
//	!env               print what the fake saw: provider, model, resume, home,
//	                   cwd, each key as a hash, the environment's names
//	!mcp               print the server names in $HERMES_HOME/mcp.json and a
//	                   hash of the bearer token they carry
//	!config            print the model.provider of $HERMES_HOME/config.yaml
//	!history           print how many turns the session has had
//	!stamp             after the session line, write the time of that final
//	                   line (Unix ns) to $HERMES_HOME/stamp (benchmarks)
type script struct {
	stubborn bool
	steps    []step
}

type step struct {
	verb string
	arg  string
}

func parseScript(query string) script {
	var s script
	for _, line := range strings.Split(query, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "!") {
			continue
		}
		verb, arg, _ := strings.Cut(line[1:], " ")
		if verb == "stubborn" {
			s.stubborn = true
			continue
		}
		s.steps = append(s.steps, step{verb: verb, arg: strings.TrimSpace(arg)})
	}
	return s
}

type state struct {
	inv      invocation
	provider string
	home     string
	sess     *session
	reply    []string
	exit     int
	failMsg  string
	silent   bool
	stamp    bool
}

func (st *state) play(sc script) int {
	for _, s := range sc.steps {
		if code, stop := st.do(s); stop {
			return code
		}
	}
	if st.failMsg != "" {
		say(os.Stderr, "Error: "+st.failMsg+"\n")
		say(os.Stderr, "\nsession_id: "+st.sess.ID+"\n")
		return 1
	}
	if !st.silent {
		if len(st.reply) == 0 {
			st.reply = []string{"ok"}
		}
		say(os.Stdout, strings.Join(st.reply, "\n")+"\n")
	}
	say(os.Stderr, "\nsession_id: "+st.sess.ID+"\n")
	if st.stamp {
		_ = os.WriteFile(filepath.Join(st.home, "stamp"), []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o600)
	}
	return st.exit
}

// do runs one directive; stop means exit now with code.
func (st *state) do(s step) (code int, stop bool) {
	n, _ := strconv.Atoi(firstField(s.arg))
	switch s.verb {
	case "reply":
		st.reply = append(st.reply, s.arg)
	case "write":
		path, text, _ := strings.Cut(s.arg, " ")
		if !filepath.IsLocal(path) {
			st.failMsg = "refusing to write outside the working folder: " + path
			return 0, false
		}
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, `\n`, "\n")), 0o644); err != nil {
			st.failMsg = err.Error()
		}
	case "sleep":
		time.Sleep(time.Duration(n) * time.Millisecond)
	case "stream":
		ms, _ := strconv.Atoi(secondField(s.arg))
		for i := 1; i <= n; i++ {
			say(os.Stdout, fmt.Sprintf("stream line %d\n", i))
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
	case "hang":
		select {}
	case "fail":
		st.failMsg = s.arg
	case "exit":
		st.exit = n
	case "crash":
		say(os.Stderr, "Traceback (most recent call last):\n  File \"/usr/lib/hermes/cli.py\", line 1, in <module>\nRuntimeError: "+firstNonEmpty(s.arg, "boom")+"\n")
		return 1, true
	case "killed":
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			_ = self.Kill() // SIGKILL
		}
		time.Sleep(time.Second)
	case "silent":
		st.silent = true
	case "flood":
		line := strings.Repeat("x", 1023) + "\n"
		for i := 0; n == 0 || i < n; i++ {
			say(os.Stdout, line)
		}
	case "grandchild":
		self, _ := os.Executable()
		gc := exec.Command(self, "__sleep")
		if err := gc.Start(); err != nil {
			st.failMsg = err.Error()
			return 0, false
		}
		say(os.Stdout, fmt.Sprintf("grandchild=%d\n", gc.Process.Pid))
	case "env":
		cwd, _ := os.Getwd()
		st.reply = append(st.reply, "provider="+st.provider, "flag-provider="+st.inv.Provider, "model="+st.inv.Model,
			"resume="+st.inv.Resume, "home="+os.Getenv("HERMES_HOME"), "cwd="+cwd)
		var vars []string
		for _, v := range keyVars {
			vars = append(vars, v)
		}
		sort.Strings(vars)
		for _, v := range vars {
			st.reply = append(st.reply, v+"="+keyHash(os.Getenv(v)))
		}
		st.reply = append(st.reply, "env="+strings.Join(envNames(), ","))
	case "mcp":
		st.reply = append(st.reply, mcpSummary(st.home)...)
	case "config":
		st.reply = append(st.reply, "config-provider="+configProvider(filepath.Join(st.home, "config.yaml")))
	case "stamp":
		st.stamp = true
	case "history":
		st.reply = append(st.reply, fmt.Sprintf("history=%d", len(st.sess.Queries)))
	default:
		st.reply = append(st.reply, "unknown directive !"+s.verb)
	}
	return 0, false
}

func mcpSummary(home string) []string {
	b, err := os.ReadFile(filepath.Join(home, "mcp.json"))
	if err != nil {
		return []string{"mcp=none"}
	}
	var f struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return []string{"mcp=unreadable"}
	}
	var names []string
	tokens := map[string]bool{}
	for n, s := range f.MCPServers {
		names = append(names, n)
		tokens[keyHash(strings.TrimPrefix(s.Headers["Authorization"], "Bearer "))] = true
	}
	sort.Strings(names)
	var hashes []string
	for h := range tokens {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	return []string{"mcp=" + strings.Join(names, ","), "mcp-token=" + strings.Join(hashes, ",")}
}

func firstField(s string) string {
	f, _, _ := strings.Cut(s, " ")
	return f
}

func secondField(s string) string {
	_, rest, _ := strings.Cut(s, " ")
	return firstField(strings.TrimSpace(rest))
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
