package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
)

// loop drives the run from launch to its one Done.
func (r *run) loop() {
	defer r.close()
	if err := r.open(); err != nil {
		r.end(executor.DoneError, r.a.opts.Spec.Name+" could not start: "+err.Error())
		return
	}
	if r.stoppedEarly() {
		return
	}
	if err := r.startSession(); err != nil {
		r.fail(err, "start")
		return
	}
	if r.stoppedEarly() {
		return
	}
	text := r.prompt()
	for {
		r.mapper.turnStarted()
		resp, err := r.turn(text)
		r.mu.Lock()
		aborted, next := r.aborted, ""
		if !aborted && len(r.steers) > 0 {
			next, r.steers = strings.Join(r.steers, "\n\n"), nil
		}
		if next == "" {
			r.ended = true
		}
		r.mu.Unlock()
		switch {
		case aborted:
			r.end(executor.DoneAborted, cmp.Or(r.mapper.summary(), "aborted"))
			return
		case err != nil:
			r.fail(err, "turn")
			return
		case next != "":
			r.status("steer: a new message for the same session")
			text = next
			continue
		}
		r.finishTurn(resp)
		return
	}
}

// turn sends one prompt and waits for its end.
func (r *run) turn(text string) (acpsdk.PromptResponse, error) {
	r.mu.Lock()
	conn, sess := r.conn, r.session
	r.inTurn = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inTurn = false
		r.mu.Unlock()
	}()
	return conn.Prompt(r.ctx, acpsdk.PromptRequest{SessionId: sess, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
}

// finishTurn ends the run by the turn's stop reason.
func (r *run) finishTurn(resp acpsdk.PromptResponse) {
	if c := r.mapper.runCost(); c != nil || resp.Usage != nil {
		ev := executor.Event{Kind: executor.KindCost, CostUSD: c}
		if u := resp.Usage; u != nil {
			ev.Usage = &executor.Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens)}
		}
		_ = r.em.Emit(r.ctx, ev)
	}
	summary := cut(r.mapper.summary(), maxSummary)
	switch resp.StopReason {
	case acpsdk.StopReasonEndTurn, "":
		r.end(executor.DoneSuccess, summary)
	case acpsdk.StopReasonMaxTokens, acpsdk.StopReasonMaxTurnRequests:
		r.end(executor.DoneMaxTurns, cmp.Or(summary, "the agent stopped at its limit ("+string(resp.StopReason)+")"))
	case acpsdk.StopReasonCancelled:
		r.end(executor.DoneAborted, cmp.Or(summary, "the agent cancelled the turn"))
	case acpsdk.StopReasonRefusal:
		r.end(executor.DoneError, "the agent refused to continue")
	default:
		r.end(executor.DoneError, "the agent ended the turn for an unknown reason: "+cut(string(resp.StopReason), 80))
	}
}

// startSession negotiates the protocol and opens (or resumes) the session,
// all within InitTimeout.
func (r *run) startSession() error {
	ctx, cancel := context.WithTimeout(r.ctx, r.a.opts.InitTimeout)
	defer cancel()
	conn := r.conn
	init, err := conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientInfo:      &acpsdk.Implementation{Name: "clawboo", Version: "1"},
		ClientCapabilities: acpsdk.ClientCapabilities{
			Fs:       acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
		},
	})
	if err != nil {
		return stepError("initialize", err, ctx)
	}
	if v := int(init.ProtocolVersion); v != acpsdk.ProtocolVersionNumber {
		return fmt.Errorf("%s speaks ACP version %d; Clawboo speaks version %d, so it cannot drive it", r.a.opts.Spec.Name, v, acpsdk.ProtocolVersionNumber)
	}
	servers := r.mcpServers(init.AgentCapabilities.McpCapabilities.Http)
	if err := r.resume(ctx, init.AgentCapabilities, servers); err == nil && r.session != "" {
		return r.started("")
	}
	s, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: r.req.WorkDir, McpServers: servers})
	if err != nil {
		return stepError("session/new", err, ctx)
	}
	r.mu.Lock()
	r.session, r.models = s.SessionId, s.Models != nil
	r.mu.Unlock()
	model := ""
	if s.Models != nil {
		model = string(s.Models.CurrentModelId)
	}
	return r.started(model)
}

// started reports the session (the resume handle) and applies the run's
// model when the session offers models.
func (r *run) started(model string) error {
	if r.req.Model != "" && r.models {
		if err := r.SetModel(r.ctx, r.req.Model); err == nil {
			model = r.req.Model
		}
	}
	return r.em.Emit(r.ctx, executor.SessionStarted(string(r.session), model))
}

// resume continues the host's session when the agent can: session/resume
// (no history replayed), else session/load (its replay is skipped).
func (r *run) resume(ctx context.Context, caps acpsdk.AgentCapabilities, servers []acpsdk.McpServer) error {
	id := strings.TrimSpace(r.req.Resume)
	if id == "" || len(id) > 256 {
		return errors.New("nothing to resume")
	}
	sid := acpsdk.SessionId(id)
	var err error
	switch {
	case caps.SessionCapabilities.Resume != nil:
		_, err = r.conn.ResumeSession(ctx, acpsdk.ResumeSessionRequest{SessionId: sid, Cwd: r.req.WorkDir, McpServers: servers})
	case caps.LoadSession:
		r.replaying.Store(true)
		_, err = r.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: sid, Cwd: r.req.WorkDir, McpServers: servers})
		r.replaying.Store(false)
	default:
		return errors.New("the agent cannot resume sessions")
	}
	if err != nil {
		r.status("the earlier session could not be resumed; starting a new one")
		return err
	}
	r.mu.Lock()
	r.session = sid
	r.mu.Unlock()
	return nil
}

// mcpServers are Clawboo's servers for this run, over HTTP with the run's
// token when the agent takes HTTP servers, else through the stdio bridge
// (every ACP agent takes stdio servers); none when there is no bridge
// either (said once).
func (r *run) mcpServers(http bool) []acpsdk.McpServer {
	out := []acpsdk.McpServer{}
	if r.a.opts.Attach == nil {
		return out
	}
	m, ok, err := r.a.opts.Attach(r.ctx, r.req)
	if err != nil || !ok {
		return out
	}
	if !http {
		bridge := r.a.opts.Bridge
		if len(bridge) == 0 {
			r.status(r.a.opts.Spec.Name + " does not take MCP servers over HTTP, so this run works without Clawboo's board tools")
			return out
		}
		for _, name := range sortedKeys(m.URLs) {
			out = append(out, acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{
				Name: name, Command: bridge[0], Args: append(slices.Clone(bridge[1:]), m.URLs[name]),
				Env: []acpsdk.EnvVariable{{Name: BridgeTokenEnv, Value: m.Token}},
			}})
		}
		return out
	}
	for _, name := range sortedKeys(m.URLs) {
		out = append(out, acpsdk.McpServer{Http: &acpsdk.McpServerHttpInline{
			Name: name, Type: "http", Url: m.URLs[name],
			Headers: []acpsdk.HttpHeader{{Name: "Authorization", Value: "Bearer " + m.Token}},
		}})
	}
	return out
}

// stepError words a failed request: a timeout names the step, and an
// error the agent sent is quoted (scrubbed, cut).
func stepError(step string, err error, ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the agent did not answer %s in time", step)
	}
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		return fmt.Errorf("the agent refused %s: %s", step, cut(redact.Secrets(re.Message), 300))
	}
	return fmt.Errorf("%s failed: %w", step, err)
}

// fail ends the run with the most telling words: a protocol fault the pump
// saw, the process's exit with its last stderr, or err.
func (r *run) fail(err error, _ string) {
	if r.stopping() {
		r.end(executor.DoneAborted, "aborted")
		return
	}
	msg := r.faultText()
	if msg == "" {
		msg = r.exitWords()
	}
	if msg == "" {
		msg = err.Error()
	}
	if strings.Contains(err.Error(), "notification queue overflow") {
		msg = "the agent sent updates faster than Clawboo could take them; it was stopped"
	}
	r.end(executor.DoneError, msg)
}

// exitWords describe a process that has exited ("" while it runs).
func (r *run) exitWords() string {
	c := r.child
	if c == nil {
		return ""
	}
	select {
	case <-c.Done():
	case <-time.After(200 * time.Millisecond):
		return ""
	}
	x := c.Wait()
	how := fmt.Sprintf("exited with code %d", x.Code)
	if x.Signal != "" {
		how = "was killed by " + x.Signal
	}
	msg := r.a.opts.Spec.Name + " " + how + " before the turn ended"
	if t := r.stderrTail(); t != "" {
		msg += ": " + t
	}
	return msg
}
