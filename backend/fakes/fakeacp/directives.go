package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Directives, one per line of a session/prompt's text (its text blocks
// joined with "\n"; leading spaces allowed; lines not starting with `!` are
// ignored), run in order. The turn then ends with end_turn unless one says
// otherwise; a prompt without directives gets one agent_message_chunk "ok".
// "say" below means an agent_message_chunk; `\n` in TEXT is a newline.
//
//	!say TEXT           say TEXT
//	!think TEXT         an agent_thought_chunk of TEXT
//	!plan A|B|C         a plan update: entries A, B, C, priority medium,
//	                    the first in_progress, the others pending
//	!tool ID TITLE      a tool_call: toolCallId ID, title TITLE, kind execute,
//	                    status pending, rawInput {"title": TITLE}
//	!toolresult ID TEXT a tool_call_update: status completed, one text
//	                    content block TEXT
//	!bigtool ID N       a tool_call (title "bigtool") then a completed
//	                    tool_call_update whose text is N 'x's (N <= 64 MiB)
//	!usage USED SIZE COST
//	                    a usage_update (the SDK's unstable SessionUsageUpdate):
//	                    used USED, size SIZE, cost {amount COST, currency USD}
//	!ask TITLE          session/request_permission for toolCallId ask-<n> (n
//	                    counts from 1 per process), title TITLE, rawInput
//	                    {"command": TITLE}, options allow-once (allow_once),
//	                    allow-always (allow_always), reject-once (reject_once);
//	                    then say "permission: <optionId>", "permission:
//	                    cancelled" or "permission error: <error>"
//	!write PATH TEXT    fs/write_text_file of TEXT to PATH exactly as given;
//	                    then say "write ok" or "write error: <error>"
//	!read PATH          fs/read_text_file; say "read: <content>" or
//	                    "read error: <error>"
//	!term PROG ARG...   terminal/create (no cwd), terminal/wait_for_exit,
//	                    terminal/output, terminal/release; then say
//	                    "term exit=<code> output=<output>" (<code> is the
//	                    signal when there is no exit code, "none" when
//	                    neither) or "term error: <method>: <error>" for the
//	                    first failing step (a created terminal is released
//	                    even after a failed step)
//	!mcp SERVER TOOL JSON
//	                    tools/call of TOOL with arguments JSON (default {})
//	                    on the session's MCP server SERVER, over the
//	                    transport session/new gave (see mcp.go); then say
//	                    "mcp: <result text>" or "mcp error: <why>"
//	!flood N            N agent_message_chunks of "x", as fast as possible
//	!crash              exit 3 at once, leaving the prompt unanswered
//	!hang               wait for session/cancel (stopReason cancelled)
//	!garbage            the raw line `{not json` on stdout, between frames
//	!sleep MS           wait MS milliseconds (session/cancel ends it early)
//	!stop REASON        end the turn now with stopReason REASON (any string)
//	!session            say the session id
//	!exit N             end the turn now (end_turn), exit N once the answer
//	                    is written
//
// <error> is the error as the SDK renders it: for a JSON-RPC error the JSON
// {"code":..,"message":..,"data":..}. A failing client request never ends
// the turn. A bad argument says "directive error: !VERB: <why>" and an
// unknown verb "unknown directive: !VERB"; both go on.
//
// After session/cancel the turn answers cancelled at its next step. A
// client request in flight (!ask, !write, !read, !term) is given
// cancelGrace to be answered — ACP has the client answer a pending
// permission request with the cancelled outcome — and is abandoned after.
type step struct {
	verb string
	arg  string
}

const cancelGrace = 500 * time.Millisecond

var directives = map[string]func(*turn, string){
	"say":        func(t *turn, arg string) { t.say(unescape(arg)) },
	"think":      func(t *turn, arg string) { t.update(acp.UpdateAgentThoughtText(unescape(arg))) },
	"plan":       (*turn).plan,
	"tool":       (*turn).tool,
	"toolresult": (*turn).toolResult,
	"bigtool":    (*turn).bigTool,
	"usage":      (*turn).usage,
	"ask":        (*turn).ask,
	"write":      (*turn).write,
	"read":       (*turn).read,
	"term":       (*turn).term,
	"mcp":        (*turn).mcpCall,
	"flood":      (*turn).flood,
	"crash":      func(t *turn, _ string) { t.a.out.exit(3) },
	"hang":       func(t *turn, _ string) { <-t.ctx.Done() },
	"garbage":    func(t *turn, _ string) { t.a.out.raw("{not json") },
	"sleep":      (*turn).sleep,
	"stop":       (*turn).stopWith,
	"session":    func(t *turn, _ string) { t.say(string(t.sid)) },
	"exit":       (*turn).exitWith,
}

func parseDirectives(text string) []step {
	var steps []step
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(line, "!") {
			continue
		}
		verb, arg, _ := strings.Cut(strings.TrimRight(line[1:], " \t\r"), " ")
		steps = append(steps, step{verb: verb, arg: strings.TrimSpace(arg)})
	}
	return steps
}

func unescape(s string) string { return strings.ReplaceAll(s, `\n`, "\n") }

// turn is one session/prompt. ctx ends on session/cancel.
type turn struct {
	a    *agent
	sid  acp.SessionId
	ctx  context.Context
	stop acp.StopReason // set by a directive that ends the turn
	exit int            // the code !exit asked for, or -1
}

// play runs the steps and returns the stop reason and the exit code to
// leave with after answering (-1: stay).
func (t *turn) play(steps []step) (acp.StopReason, int) {
	t.exit = -1
	if len(steps) == 0 {
		t.say("ok")
		return acp.StopReasonEndTurn, -1
	}
	for _, s := range steps {
		if t.ctx.Err() != nil {
			return acp.StopReasonCancelled, -1
		}
		do, ok := directives[s.verb]
		if !ok {
			t.say("unknown directive: !" + s.verb)
			continue
		}
		do(t, s.arg)
		if t.stop != "" {
			return t.stop, t.exit
		}
	}
	if t.ctx.Err() != nil {
		return acp.StopReasonCancelled, -1
	}
	return acp.StopReasonEndTurn, -1
}

// update sends a session/update; it still goes out after session/cancel
// (ACP lets an agent report until it answers the prompt).
func (t *turn) update(u acp.SessionUpdate) {
	_ = t.a.conn.SessionUpdate(context.WithoutCancel(t.ctx), acp.SessionNotification{SessionId: t.sid, Update: u})
}

func (t *turn) say(text string) { t.update(acp.UpdateAgentMessageText(text)) }

func (t *turn) fail(verb string, err error) {
	t.say(fmt.Sprintf("directive error: !%s: %v", verb, err))
}

// requestCtx is the context of a request to the client: it outlives the
// turn's cancellation by cancelGrace.
func (t *turn) requestCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.ctx))
	stop := context.AfterFunc(t.ctx, func() { time.AfterFunc(cancelGrace, cancel) })
	return ctx, func() {
		stop()
		cancel()
	}
}

func count(s string, limit int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > limit {
		return 0, fmt.Errorf("want a count from 0 to %d, got %q", limit, s)
	}
	return n, nil
}

func (t *turn) plan(arg string) {
	var entries []acp.PlanEntry
	for i, c := range strings.Split(arg, "|") {
		status := acp.PlanEntryStatusPending
		if i == 0 {
			status = acp.PlanEntryStatusInProgress
		}
		entries = append(entries, acp.PlanEntry{
			Content:  strings.TrimSpace(c),
			Priority: acp.PlanEntryPriorityMedium,
			Status:   status,
		})
	}
	t.update(acp.UpdatePlan(entries...))
}

func (t *turn) startTool(id, title string) {
	t.update(acp.StartToolCall(acp.ToolCallId(id), title,
		acp.WithStartKind(acp.ToolKindExecute),
		acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartRawInput(map[string]any{"title": title})))
}

func (t *turn) finishTool(id, text string) {
	t.update(acp.UpdateToolCall(acp.ToolCallId(id),
		acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))})))
}

func (t *turn) tool(arg string) {
	id, title, _ := strings.Cut(arg, " ")
	t.startTool(id, strings.TrimSpace(title))
}

func (t *turn) toolResult(arg string) {
	id, text, _ := strings.Cut(arg, " ")
	t.finishTool(id, unescape(strings.TrimSpace(text)))
}

func (t *turn) bigTool(arg string) {
	id, size, _ := strings.Cut(arg, " ")
	n, err := count(strings.TrimSpace(size), maxBigTool)
	if err != nil {
		t.fail("bigtool", err)
		return
	}
	t.startTool(id, "bigtool")
	t.finishTool(id, strings.Repeat("x", n))
}

func (t *turn) usage(arg string) {
	f := strings.Fields(arg)
	if len(f) != 3 {
		t.fail("usage", fmt.Errorf("want USED SIZE COST, got %q", arg))
		return
	}
	used, err1 := strconv.Atoi(f[0])
	size, err2 := strconv.Atoi(f[1])
	cost, err3 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		t.fail("usage", fmt.Errorf("want two integers and a number, got %q", arg))
		return
	}
	t.update(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{
		Used: used,
		Size: size,
		Cost: &acp.Cost{Amount: cost, Currency: "USD"},
	}})
}

func (t *turn) flood(arg string) {
	n, err := count(arg, 1<<30)
	if err != nil {
		t.fail("flood", err)
		return
	}
	for i := 0; i < n && t.ctx.Err() == nil; i++ {
		t.say("x")
	}
}

func (t *turn) sleep(arg string) {
	ms, err := count(arg, 1<<30)
	if err != nil {
		t.fail("sleep", err)
		return
	}
	timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-t.ctx.Done():
	}
}

func (t *turn) stopWith(arg string) {
	if arg == "" {
		t.fail("stop", fmt.Errorf("want a stop reason"))
		return
	}
	t.stop = acp.StopReason(arg)
}

func (t *turn) exitWith(arg string) {
	n, err := count(arg, 255)
	if err != nil {
		t.fail("exit", err)
		return
	}
	t.stop, t.exit = acp.StopReasonEndTurn, n
}
