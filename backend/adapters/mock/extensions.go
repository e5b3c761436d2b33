package mock

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/jail"
)

// costEvent builds the cost event of !cost, !usage or !localcost; a
// malformed argument gives an event with nothing in it rather than a lie.
func costEvent(d Directive) executor.Event {
	f := strings.Fields(d.Arg)
	ev := executor.Event{Kind: executor.KindCost}
	num := func(i int) int64 {
		if i < len(f) {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err == nil && n >= 0 {
				return n
			}
		}
		return 0
	}
	switch d.Name {
	case "cost":
		if len(f) > 0 {
			if usd, err := strconv.ParseFloat(f[0], 64); err == nil && usd >= 0 {
				ev.CostUSD = &usd
			}
		}
		if len(f) > 1 {
			ev.Model = f[1]
		}
	case "usage", "localcost":
		ev.Usage = &executor.Usage{InputTokens: num(0), OutputTokens: num(1)}
		if len(f) > 2 {
			ev.Model = f[2]
		}
		if d.Name == "localcost" {
			zero := 0.0
			ev.CostUSD, ev.Local = &zero, true
		}
	}
	return ev
}

// write is !write: a synthesized write_file tool call whose result is the
// real outcome of writing inside the working folder.
func (r *run) write(arg string) bool {
	path, text, _ := strings.Cut(strings.TrimSpace(arg), " ")
	id := r.nextToolID()
	input, _ := json.Marshal(map[string]string{"path": path, "text": text})
	if !r.emit(executor.ToolCall(id, "write_file", input)) {
		return false
	}
	out, isErr := "wrote "+path, false
	if err := writeInside(r.workDir, path, text+"\n"); err != nil {
		out, isErr = err.Error(), true
	}
	return r.emit(executor.ToolResult(id, "write_file", out, isErr))
}

// writeInside writes through a jail.Dir, as the native file tools do: no
// ".." or symlink (even one committed to the repository) leads outside the
// working folder, and nothing reaches git's metadata.
func writeInside(root, rel, text string) error {
	if root == "" {
		return errString("no working folder: !write needs a board task with a worktree (start the server with CLAWBOO_MOCK_WORKTREES=1)")
	}
	if rel == "" {
		return errString("!write needs a relative path")
	}
	d, err := jail.Open(root)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Write(rel, []byte(text)); err != nil {
		return fmt.Errorf("!write refused: %w", err)
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

// delegateTo is !delegate: a typed delegation handed to the host, shown as
// a "delegate" tool call whose result is what the host answered. A run that
// may not delegate (not a leader's turn) gets a tool error, never a task.
func (r *run) delegateTo(arg string) bool {
	who, task, _ := strings.Cut(strings.TrimSpace(arg), " ")
	task = strings.TrimSpace(task)
	d := executor.Delegation{Assignee: who}
	for {
		k, rest, ok := strings.Cut(task, " ")
		switch {
		case ok && strings.HasPrefix(k, "kind="):
			d.Kind = strings.TrimPrefix(k, "kind=")
		case ok && strings.HasPrefix(k, "repo="):
			d.RepoPath = strings.TrimPrefix(k, "repo=")
		default:
			ok = false
		}
		if !ok {
			break
		}
		task = strings.TrimSpace(rest)
	}
	d.Task = strings.ReplaceAll(task, `\n`, "\n")
	task = d.Task
	id := r.nextToolID()
	input, _ := json.Marshal(d)
	if !r.emit(executor.ToolCall(id, "delegate", input)) {
		return false
	}
	out, isErr := "", false
	switch {
	case r.delegate == nil:
		out, isErr = "delegation is not available to this run (only a team leader's turn may delegate)", true
	case who == "" || task == "":
		out, isErr = "!delegate needs a member and a task", true
	default:
		res, err := r.delegate(r.ctx, d)
		out, isErr = res, err != nil
		if err != nil {
			out = err.Error()
		}
	}
	return r.emit(executor.ToolResult(id, "delegate", out, isErr))
}

// reviewRound reads a critic run's session key, "review:<task>:<round>:<id>".
func reviewRound(key string) (int, bool) {
	rest, ok := strings.CutPrefix(key, "review:")
	if !ok {
		return 0, false
	}
	f := strings.Split(rest, ":")
	n := 1
	if len(f) > 1 {
		if v, err := strconv.Atoi(f[1]); err == nil && v > 0 {
			n = v
		}
	}
	return n, true
}

// criticScript is what a review run plays: its round's !critic answer as
// the run's one text (the last !critic when the rounds ran out), or an
// empty list of findings.
func criticScript(ds []Directive, round int) []Directive {
	var answers []string
	for _, d := range ds {
		if d.Name == "critic" {
			answers = append(answers, d.Arg)
		}
	}
	answer := `{"findings":[]}`
	switch {
	case len(answers) >= round:
		answer = answers[round-1]
	case len(answers) > 0:
		answer = answers[len(answers)-1]
	}
	return []Directive{{Name: "ok", Arg: answer}}
}

// askPerson is !ask COMMAND: a run_command tool call whose result is a
// person's answer (the command is never run). A stop withdraws the
// question.
func (r *run) askPerson(command string) bool {
	id := r.nextToolID()
	input, _ := json.Marshal(map[string]string{"command": command})
	if !r.emit(executor.ToolCall(id, "run_command", input)) {
		return false
	}
	out := "no one can be asked here"
	allowed := false
	if r.ask != nil && command != "" {
		ctx, cancel := context.WithCancel(r.ctx)
		defer cancel()
		go func() {
			select {
			case <-r.aborted:
				cancel()
			case <-ctx.Done():
			}
		}()
		task, _ := strings.CutPrefix(r.req.SessionKey, "task:")
		if task == r.req.SessionKey {
			task = ""
		}
		ok, note, err := r.ask(ctx, Question{Command: command, Folder: r.workDir, RunID: string(r.req.RunID), AgentID: r.req.AgentID, TeamID: r.req.TeamID, TaskID: task})
		switch {
		case err != nil:
			out = "not asked: " + err.Error()
		case ok:
			out, allowed = "allowed: "+command, true
		default:
			out = "not allowed: " + command
		}
		if note != "" {
			out += " (" + note + ")"
		}
	}
	r.texts = append(r.texts, out)
	return r.emit(executor.ToolResult(id, "run_command", out, !allowed)) && r.emit(executor.Text(out))
}
