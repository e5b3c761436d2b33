package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// The directives that call the client back. None of them ends the turn:
// a failed request is said as text.

var askOptions = []acp.PermissionOption{
	{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: "allow-once"},
	{Kind: acp.PermissionOptionKindAllowAlways, Name: "Allow always", OptionId: "allow-always"},
	{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject once", OptionId: "reject-once"},
}

func (t *turn) ask(title string) {
	ctx, done := t.requestCtx()
	defer done()
	resp, err := t.a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: t.sid,
		ToolCall: acp.ToolCallUpdate{
			ToolCallId: acp.ToolCallId(fmt.Sprintf("ask-%d", t.a.nextAsk())),
			Title:      acp.Ptr(title),
			RawInput:   map[string]any{"command": title},
		},
		Options: askOptions,
	})
	switch {
	case err != nil:
		t.say("permission error: " + err.Error())
	case resp.Outcome.Selected != nil:
		t.say("permission: " + string(resp.Outcome.Selected.OptionId))
	default:
		t.say("permission: cancelled")
	}
}

func (t *turn) write(arg string) {
	path, text, _ := strings.Cut(arg, " ")
	ctx, done := t.requestCtx()
	defer done()
	_, err := t.a.conn.WriteTextFile(ctx, acp.WriteTextFileRequest{
		SessionId: t.sid,
		Path:      path,
		Content:   unescape(text),
	})
	if err != nil {
		t.say("write error: " + err.Error())
		return
	}
	t.say("write ok")
}

func (t *turn) read(path string) {
	ctx, done := t.requestCtx()
	defer done()
	resp, err := t.a.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: t.sid, Path: path})
	if err != nil {
		t.say("read error: " + err.Error())
		return
	}
	t.say("read: " + resp.Content)
}

func (t *turn) term(arg string) {
	argv := strings.Fields(arg)
	if len(argv) == 0 {
		t.fail("term", fmt.Errorf("want a program and its arguments"))
		return
	}
	ctx, done := t.requestCtx()
	defer done()
	created, err := t.a.conn.CreateTerminal(ctx, acp.CreateTerminalRequest{
		SessionId: t.sid,
		Command:   argv[0],
		Args:      argv[1:],
	})
	if err != nil {
		t.say(fmt.Sprintf("term error: %s: %v", acp.ClientMethodTerminalCreate, err))
		return
	}
	id := created.TerminalId
	code, output, err := t.runTerminal(ctx, id)
	_, relErr := t.a.conn.ReleaseTerminal(ctx, acp.ReleaseTerminalRequest{SessionId: t.sid, TerminalId: id})
	if err == nil && relErr != nil {
		err = fmt.Errorf("%s: %w", acp.ClientMethodTerminalRelease, relErr)
	}
	if err != nil {
		t.say("term error: " + err.Error())
		return
	}
	t.say(fmt.Sprintf("term exit=%s output=%s", code, output))
}

// runTerminal waits for the terminal's command and reads its output.
func (t *turn) runTerminal(ctx context.Context, id string) (code, output string, err error) {
	exited, err := t.a.conn.WaitForTerminalExit(ctx, acp.WaitForTerminalExitRequest{SessionId: t.sid, TerminalId: id})
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", acp.ClientMethodTerminalWaitForExit, err)
	}
	out, err := t.a.conn.TerminalOutput(ctx, acp.TerminalOutputRequest{SessionId: t.sid, TerminalId: id})
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", acp.ClientMethodTerminalOutput, err)
	}
	switch {
	case exited.ExitCode != nil:
		code = strconv.Itoa(*exited.ExitCode)
	case exited.Signal != nil:
		code = *exited.Signal
	default:
		code = "none"
	}
	return code, out.Output, nil
}
