package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/proc"
)

// run_command (seed 004, "Running commands"): a native agent may ask a
// person to run one program in its working folder. Every command is asked,
// nothing is remembered.
//
// The tool exists only when all hold: the agent's shell switch is on
// (absent reads as off), the run has a working folder, the host is not
// Windows, the host wired an Ask (the approvals queue), and the run is a
// clawboo-native run (it is a local tool of this loop, never an MCP tool).
//
// Per run: at most MaxCommandAsks asks (the next call is refused without
// asking); a person's refusal or an unanswered (expired) card latches the
// tool for the rest of the run. Refusals are reported as policy denials
// (the loop's repeat-denial breaker ends the run on the second one in a
// row); an expiry is not itself a denial, so two later attempts trip it.
//
// Refused before anyone is asked (each a policy denial):
//   - argv empty, more than MaxArgv items, an item over MaxArgBytes bytes;
//   - any control character in any item (a NUL would make what a person
//     reads differ from what the kernel receives);
//   - an argv[0] with a path separator that is not absolute;
//   - a denylisted program (see denied), checked on argv[0]'s name, on the
//     resolved path and its symlink target, and on the interpreter a
//     script's shebang names (through /usr/bin/env too).
//
// An allowed command is spawned without a shell (argv exec'd directly), in
// the working folder, in its own process group, with the proc.BaseEnv
// allowlist (never provider keys), for at most CommandTimeout: then SIGTERM
// to the group and SIGKILL after the grace period; aborting the run does
// the same. Output (stdout and stderr, line by line in arrival order) is
// capped at CommandOutputCap with a note when the tail was dropped; the
// command is never killed for being chatty. Every execution is recorded in
// the run's event timeline as a status event (argv, folder, exit, duration,
// output size).

// RunCommandTool is the tool's name.
const RunCommandTool = "run_command"

// Limits of run_command.
const (
	MaxArgv          = 64
	MaxArgBytes      = 2048
	MaxCommandAsks   = 10
	CommandTimeout   = 5 * time.Minute
	CommandGrace     = 3 * time.Second
	CommandOutputCap = 64 << 10
)

// AskOutcome is how a person answered (or did not).
type AskOutcome string

// Outcomes of an ask.
const (
	AskAllowed AskOutcome = "allowed"
	AskDenied  AskOutcome = "denied"
	AskExpired AskOutcome = "expired" // nobody answered in time, or withdrawn
)

// AskRequest is what a person is shown before a command runs.
type AskRequest struct {
	Argv []string
	// Command is argv quoted for a person to read.
	Command string
	Folder  string
	AgentID string
	TeamID  string
	TaskID  string
	RunID   string
	// Why is the agent's own one-sentence reason (may be empty).
	Why string
}

// AskAnswer is the person's answer.
type AskAnswer struct {
	Outcome AskOutcome
	Note    string
}

// shellAvailable is the tool's precondition (see the package notes above).
func shellAvailable(cfg AgentConfig, workDir string, ask func(context.Context, AskRequest) (AskAnswer, error)) bool {
	return cfg.Tools.Shell != nil && *cfg.Tools.Shell && workDir != "" && runtime.GOOS != "windows" && ask != nil
}

func runCommandDef() llm.Tool {
	return llm.Tool{
		Name: RunCommandTool,
		Description: "Ask the person to run one program in the working folder. argv holds the program and each " +
			"argument as separate items; there is no shell, so no pipes, redirects or operators. The person is " +
			"asked every time; if they refuse, the tool stays refused for the rest of this run.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"argv":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":64,"description":"The program, then each argument as its own item"},` +
			`"why":{"type":"string","description":"One short sentence on why this command is needed"}},` +
			`"required":["argv"],"additionalProperties":false}`),
	}
}

// shellTool is one run's run_command state.
type shellTool struct {
	dir     string
	ask     func(context.Context, AskRequest) (AskAnswer, error)
	info    AskRequest // agent, team, task, run and folder
	timeout time.Duration
	grace   time.Duration
	environ func() []string
	emit    func(executor.Event) bool

	mu      sync.Mutex
	asks    int
	latched string // why the tool is refused for the rest of the run
}

// Denial codes (toolOutcome.denied) of run_command.
const (
	deniedInvalid  = "invalid_argv"
	deniedListed   = "denylisted"
	deniedCeiling  = "ask_ceiling"
	deniedLatched  = "latched"
	deniedByPerson = "refused"
)

type runCommandInput struct {
	Argv []string `json:"argv"`
	Why  string   `json:"why"`
}

func (s *shellTool) call(ctx context.Context, input json.RawMessage) toolOutcome {
	var in runCommandInput
	if err := json.Unmarshal(input, &in); err != nil {
		return refuse(deniedInvalid, "argv must be a non-empty array of strings")
	}
	if msg := checkArgv(in.Argv); msg != "" {
		return refuse(deniedInvalid, msg)
	}
	s.mu.Lock()
	latched := s.latched
	s.mu.Unlock()
	if latched != "" {
		return refuse(deniedLatched, "run_command is no longer available in this run: "+latched)
	}
	if why := deniedName(progName(in.Argv[0]), in.Argv[1:]); why != "" {
		return refuse(deniedListed, why)
	}
	path, err := resolveProgram(in.Argv[0], s.environ())
	if err != nil {
		return toolOutcome{out: "not run: " + err.Error(), isErr: true}
	}
	if why := deniedProgram(in.Argv, path); why != "" {
		return refuse(deniedListed, why)
	}
	s.mu.Lock()
	if s.asks >= MaxCommandAsks {
		s.mu.Unlock()
		return refuse(deniedCeiling, fmt.Sprintf("this run already asked about %d commands, the most one run may ask", MaxCommandAsks))
	}
	s.asks++
	s.mu.Unlock()

	req := s.info
	req.Argv = append([]string(nil), in.Argv...)
	req.Command = proc.QuoteArgv(in.Argv)
	req.Why = strings.TrimSpace(in.Why)
	ans, err := s.ask(ctx, req)
	if ctx.Err() != nil && (err != nil || ans.Outcome != AskAllowed) {
		s.latch("the run was aborted")
		return toolOutcome{out: "not run: the run was aborted while the person was being asked", isErr: true}
	}
	switch {
	case err != nil || ans.Outcome == AskExpired:
		why := "nobody answered the request in time"
		if err != nil {
			why = "the request could not be asked: " + err.Error()
		}
		s.latch(why)
		// Not a denial: the breaker needs two later attempts.
		return toolOutcome{out: "not run: " + why + "; run_command is unavailable for the rest of this run", isErr: true}
	case ans.Outcome != AskAllowed:
		s.latch("the person refused a command")
		msg := "not run: the person refused this command; run_command is unavailable for the rest of this run"
		if n := strings.TrimSpace(ans.Note); n != "" {
			msg += " (their note: " + n + ")"
		}
		return refuse(deniedByPerson, msg)
	}
	if ctx.Err() != nil {
		return toolOutcome{out: "not run: the run was aborted", isErr: true}
	}
	return s.exec(ctx, path, in.Argv)
}

func (s *shellTool) latch(why string) {
	s.mu.Lock()
	if s.latched == "" {
		s.latched = why
	}
	s.mu.Unlock()
}

func refuse(code, msg string) toolOutcome {
	if !strings.HasPrefix(msg, "not run") && !strings.HasPrefix(msg, "run_command is") {
		msg = "refused: " + msg
	}
	return toolOutcome{out: msg, isErr: true, denied: code}
}

// checkArgv is the shape check; "" means fine.
func checkArgv(argv []string) string {
	switch {
	case len(argv) == 0:
		return "argv must be a non-empty array of strings"
	case len(argv) > MaxArgv:
		return fmt.Sprintf("argv has %d items; at most %d are allowed", len(argv), MaxArgv)
	}
	for i, a := range argv {
		if len(a) > MaxArgBytes {
			return fmt.Sprintf("argv[%d] is %d bytes; at most %d are allowed", i, len(a), MaxArgBytes)
		}
		for _, r := range a {
			if unicode.IsControl(r) {
				return fmt.Sprintf("argv[%d] contains a control character (%U)", i, r)
			}
		}
	}
	if argv[0] == "" {
		return "argv[0] (the program) is empty"
	}
	if strings.ContainsRune(argv[0], '/') || strings.ContainsRune(argv[0], filepath.Separator) {
		if !filepath.IsAbs(argv[0]) {
			return "argv[0] must be a bare program name or an absolute path, not a relative path"
		}
	}
	return ""
}

// resolveProgram finds argv[0] on the child's PATH (or takes it as given
// when absolute).
func resolveProgram(name string, env []string) (string, error) {
	if filepath.IsAbs(name) {
		st, err := os.Stat(name)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s is not an executable file", name)
		}
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // never the working folder by accident
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %q was not found on PATH", name)
}

// signalNames turns Go's signal descriptions into the names people know.
var signalNames = map[string]string{
	"terminated": "SIGTERM", "killed": "SIGKILL", "interrupt": "SIGINT", "hangup": "SIGHUP",
	"aborted": "SIGABRT", "segmentation fault": "SIGSEGV", "quit": "SIGQUIT", "broken pipe": "SIGPIPE",
	"bus error": "SIGBUS", "floating point exception": "SIGFPE", "user defined signal 1": "SIGUSR1",
	"user defined signal 2": "SIGUSR2", "alarm clock": "SIGALRM",
}

// commandRecord is what the timeline keeps of one execution.
type commandRecord struct {
	Argv        []string `json:"argv"`
	Folder      string   `json:"folder"`
	Exit        *int     `json:"exit"`
	Signal      string   `json:"signal,omitempty"`
	DurationMS  int64    `json:"durationMs"`
	OutputBytes int      `json:"outputBytes"`
	TimedOut    bool     `json:"timedOut,omitempty"`
	Aborted     bool     `json:"aborted,omitempty"`
}

// exec runs an allowed command and reports it.
func (s *shellTool) exec(ctx context.Context, path string, argv []string) toolOutcome {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	child, err := proc.Start(cctx, proc.Spec{Path: path, Args: argv[1:], Dir: s.dir, Env: s.environ(), Grace: s.grace, MaxLine: CommandOutputCap})
	if err != nil {
		return toolOutcome{out: "the command could not be started: " + err.Error(), isErr: true}
	}
	var out strings.Builder
	total, dropped := 0, 0
	for l := range child.Lines() {
		line := l.Text + "\n"
		total += len(line)
		if room := CommandOutputCap - out.Len(); room > 0 {
			if len(line) > room {
				dropped += len(line) - room
				line = line[:room]
			}
			out.WriteString(line)
		} else {
			dropped += len(line)
		}
	}
	ex := child.Wait()
	dur := time.Since(start)
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	aborted := ctx.Err() != nil

	rec := commandRecord{Argv: argv, Folder: s.dir, Signal: ex.Signal, DurationMS: dur.Milliseconds(), OutputBytes: total, TimedOut: timedOut, Aborted: aborted}
	var head string
	isErr := true
	switch {
	case ex.Signal != "":
		sig := ex.Signal
		if n, ok := signalNames[sig]; ok {
			sig = n
		}
		rec.Signal = sig
		head = "The command finished with exit code unknown (killed by " + sig + ")."
	case ex.Code < 0 || ex.Err != nil:
		head = "The command finished with exit code unknown."
		if ex.Err != nil {
			head += " " + ex.Err.Error()
		}
	default:
		code := ex.Code
		rec.Exit = &code
		head = "The command finished with exit code " + strconv.Itoa(code) + "."
		isErr = code != 0
	}
	switch {
	case timedOut:
		head += fmt.Sprintf(" It was stopped after the %s time limit.", s.timeout)
	case aborted:
		head += " It was stopped because the run was aborted."
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("\n")
	b.WriteString(out.String())
	if dropped > 0 {
		fmt.Fprintf(&b, "\n[output capped at %d bytes: the last %d bytes were dropped]", CommandOutputCap, dropped)
	}
	if s.emit != nil {
		detail, _ := json.Marshal(rec)
		s.emit(executor.Event{Kind: executor.KindStatus, Phase: executor.PhaseRunning, Name: RunCommandTool, Detail: string(detail)})
	}
	return toolOutcome{out: b.String(), isErr: isErr}
}
