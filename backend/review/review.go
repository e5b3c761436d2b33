// Package review is the critic: after a task's change passed its verify
// command, a fresh run of the same runtime reads the committed diff and
// answers findings with severities. This package owns the rules and the
// words (when a change is risky enough to review, the prompt, reading the
// answer, which severities block, the fix budget, the comments); the
// supervisor runs it and the worktree package gives it a detached checkout.
//
// Invariants:
//   - Everything here is a pure function of its arguments, except Critique,
//     which runs the critic only through the Runner it is given.
//   - An answer that is not JSON never blocks: it becomes one "other"
//     finding saying so. A critic that could not run is reported as not run
//     (Verdict.Ran false), never as a pass with findings invented.
//   - Only security, crash, data_loss, wrong_algorithm and missing_ac
//     block; every other severity (unknown ones too) is debt.
//   - The prompt carries at most MaxDiff bytes of the diff, cut at a line.
package review

import (
	"context"
	"fmt"
	"strings"
)

// Severity is how bad a finding is.
type Severity string

// The severities a critic may answer.
const (
	Security       Severity = "security"
	Crash          Severity = "crash"
	DataLoss       Severity = "data_loss"
	WrongAlgorithm Severity = "wrong_algorithm"
	MissingAC      Severity = "missing_ac"
	Style          Severity = "style"
	Perf           Severity = "perf"
	TestGap        Severity = "test_gap"
	Other          Severity = "other"
)

// Blocks says whether a finding of this severity sends the work back.
func (s Severity) Blocks() bool {
	switch s {
	case Security, Crash, DataLoss, WrongAlgorithm, MissingAC:
		return true
	}
	return false
}

// Finding is one thing the critic found.
type Finding struct {
	Severity Severity `json:"severity"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Note     string   `json:"note"`
}

// Mode is a task's critic setting.
type Mode string

// A task's critic modes: auto reviews a risky change when its team (if
// any) has the critic on; on always reviews; off never does.
const (
	Auto Mode = "auto"
	On   Mode = "on"
	Off  Mode = "off"
)

// ParseMode reads a mode; "" is auto, anything unknown is an error.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Auto, nil
	case Auto, On, Off:
		return m, nil
	}
	return "", fmt.Errorf("critic must be auto, on or off, not %q", s)
}

// Change is the size of a task's change against its base.
type Change struct {
	Files, Insertions, Deletions int
}

// Risk thresholds: a change above either is reviewed in auto mode.
const (
	RiskyFiles = 5
	RiskyLines = 300
)

// Risky is the reference's trigger: a task under a parent (delegated or
// split work), more than RiskyFiles files, or more than RiskyLines lines
// changed (insertions plus deletions).
func Risky(hasParent bool, c Change) bool {
	return hasParent || c.Files > RiskyFiles || c.Insertions+c.Deletions > RiskyLines
}

// Wanted decides whether a change is reviewed: a task's on or off wins;
// auto reviews a risky change unless its team turned the critic off.
func Wanted(task Mode, teamOn bool, risky bool) bool {
	switch task {
	case On:
		return true
	case Off:
		return false
	}
	return teamOn && risky
}

// MaxFixes is how many fix runs a blocked change gets before the task is
// blocked for a person.
const MaxFixes = 2

// Verdict is one review's result.
type Verdict struct {
	Ran      bool      // the critic answered (false: it could not run; Why says so)
	Why      string    // why it did not run
	Findings []Finding // everything it found, in its order
	RunID    string    // the critic's run
}

// Blocking are the findings that send the work back.
func (v Verdict) Blocking() []Finding { return pick(v.Findings, true) }

// Debt are the findings recorded without blocking.
func (v Verdict) Debt() []Finding { return pick(v.Findings, false) }

func pick(fs []Finding, blocking bool) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity.Blocks() == blocking {
			out = append(out, f)
		}
	}
	return out
}

// Request is what the critic reviews.
type Request struct {
	TaskID, Title, Description string
	Diff                       string
	Round                      int // 1 for the first review of this change
}

// Runner runs one critic: a fresh session on the task's runtime, working
// in dir (the detached review checkout), with prompt as its message. It
// returns the run's id and its final answer text; an error means the
// critic did not finish (it failed, was stopped, or could not start).
type Runner interface {
	Run(ctx context.Context, prompt, dir string, round int) (runID, answer string, err error)
}

// Critique runs the critic once and reads its answer.
func Critique(ctx context.Context, r Runner, req Request, dir string) Verdict {
	id, answer, err := r.Run(ctx, Prompt(req), dir, req.Round)
	if err != nil {
		return Verdict{RunID: id, Why: err.Error()}
	}
	return Verdict{Ran: true, RunID: id, Findings: Parse(answer)}
}
