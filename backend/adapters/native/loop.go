package native

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
)

// overflowText matches provider wording for a conversation that no longer
// fits, for errors that do not say so by type.
var overflowText = regexp.MustCompile(`(?i)context[ _-]?(length|window|overflow)|prompt is too long|too many (input )?tokens|maximum context`)

// isContextOverflow reports an error that means the conversation does not
// fit the model: one llm classified so, one that says so itself
// (ContextOverflow() true anywhere in its chain), or one whose wording
// does (a provider outside llm).
func isContextOverflow(err error) bool {
	if llm.IsContextOverflow(err) {
		return true
	}
	var co interface{ ContextOverflow() bool }
	if errors.As(err, &co) && co.ContextOverflow() {
		return true
	}
	return overflowText.MatchString(err.Error())
}

// ServedStream is the optional interface of a stream that knows which
// provider and model answered (a fallback router's stream does); cost is
// attributed to them. Without it the provider's ID and the requested
// model are reported.
type ServedStream interface {
	ServedBy() (provider, model string)
}

// ModelSetter is the optional interface of a provider that chooses the
// model itself (a fallback router replaces Request.Model with its
// candidate's): a model change is handed to it at the turn boundary.
type ModelSetter interface {
	SetModel(model string)
}

// turn is one streamed response.
type turn struct {
	text     string
	calls    []llm.ToolCall
	usage    llm.Usage
	complete bool // the response ended with Done
	provider string
	model    string
	// limits are the rate-limit windows the turn's provider answers
	// stated (every candidate's, through a fallback router).
	limits []llm.RateLimit
}

// session is the transcript state of a run.
type session struct {
	store   sessions
	keep    bool
	id      string
	handoff string // the note this run starts from, if a successor
	history []llm.Message
}

// openSession resumes the session of the run's key, starts its successor
// after a max_turns handoff, or starts a new one.
func (r *run) openSession() session {
	st, keep := newSessions(r.a.opts.Home, r.req.AgentID)
	s := session{store: st, keep: keep}
	if !keep || r.req.SessionKey == "" {
		s.id = randomSessionID()
		return s
	}
	prefix := keyPrefix(r.req.SessionKey)
	t, gen, ok := st.latest(r.req.SessionKey)
	switch {
	case ok && t.Handoff != "":
		s.id, s.handoff = prefix+strconv.Itoa(gen+1), t.Handoff
	case ok:
		s.id = t.SessionID
		s.history = closeOpenCalls(trimHistory(t.Messages, ResumeChars))
	default:
		s.id = prefix + strconv.Itoa(gen)
	}
	return s
}

// firstMessage is the run's opening user text: a handoff note, then the
// caller's context, then the message.
func firstMessage(handoff, ctxText, msg string) string {
	var parts []string
	for _, p := range []string{handoff, ctxText, msg} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "Begin."
	}
	return strings.Join(parts, "\n\n")
}

func textBlock(s string) llm.Block { return llm.Block{Type: llm.Text, Text: s} }

// loop is the run: turns until the model stops calling tools, maxTurns,
// an abort or an error.
func (r *run) loop() {
	defer r.tools.close()
	defer r.cancel()
	s := r.openSession()
	if !r.announce(s) {
		return
	}
	msgs := appendUser(s.history, textBlock(firstMessage(s.handoff, r.req.Context, r.req.Message)))
	provider, err := r.provider()
	if err != nil {
		r.finishError(s, msgs, "no_provider", "no model provider: "+err.Error())
		return
	}
	system := r.cfg.SystemPrompt + "\n\nToday: " + r.a.opts.Now().Format("2006-01-02")
	var last string
	lastModel := r.cfg.PrimaryModel
	for n := 1; n <= r.cfg.MaxTurns; n++ {
		model, texts, ok := r.boundary()
		if !ok {
			r.finish(s, msgs, executor.DoneAborted, orDefault(last, "run aborted"), "")
			return
		}
		for _, t := range texts {
			msgs = appendUser(msgs, textBlock(t))
		}
		if ms, ok := provider.(ModelSetter); ok && model != lastModel {
			ms.SetModel(model)
		}
		lastModel = model
		if !r.emit(executor.Event{Kind: executor.KindStatus, Phase: executor.PhaseThinking, Model: model, Detail: "turn " + strconv.Itoa(n)}) {
			return
		}
		req := llm.Request{Model: model, System: system, Messages: slices.Clone(msgs), Tools: r.tools.defs, MaxTokens: MaxTokens}
		t, err := r.stream(provider, req)
		if !r.emitQuota(t.limits) {
			return
		}
		if t.complete && !r.emitCost(t) {
			return
		}
		if t.text != "" || len(t.calls) > 0 {
			msgs = append(msgs, assistantMessage(t))
			if t.text != "" {
				last = t.text
			}
		}
		switch {
		case r.isAborted():
			r.finish(s, msgs, executor.DoneAborted, orDefault(last, "run aborted"), "")
			return
		case err != nil && isContextOverflow(err):
			r.finishError(s, msgs, "context_overflow", ContextOverflowMessage)
			return
		case err != nil:
			r.finishError(s, msgs, "provider", "model provider error: "+err.Error())
			return
		case len(t.calls) == 0:
			r.finish(s, msgs, executor.DoneSuccess, t.text, "")
			return
		}
		results, ok, tripped := r.runTools(t.calls)
		msgs = append(msgs, llm.Message{Role: llm.User, Content: results})
		if !ok {
			return
		}
		if tripped != "" {
			r.finishError(s, msgs, "repeat_denial", tripped)
			return
		}
		if !r.emit(executor.Status(executor.PhaseTurnComplete, "turn "+strconv.Itoa(n))) {
			return
		}
	}
	summary := orDefault(last, "stopped after "+strconv.Itoa(r.cfg.MaxTurns)+" turns")
	r.finish(s, msgs, executor.DoneMaxTurns, summary, handoffNote(r.req.Message, last, r.cfg.MaxTurns))
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func assistantMessage(t turn) llm.Message {
	var blocks []llm.Block
	if t.text != "" {
		blocks = append(blocks, textBlock(t.text))
	}
	for _, c := range t.calls {
		blocks = append(blocks, llm.Block{Type: llm.ToolUse, ID: c.ID, Name: c.Name, Input: c.Input})
	}
	return llm.Message{Role: llm.Assistant, Content: blocks}
}

// stream runs one turn, emitting text and reasoning as it arrives. Abort
// closes the stream at once.
func (r *run) stream(p llm.Provider, req llm.Request) (t turn, err error) {
	t = turn{provider: p.ID(), model: req.Model}
	var lim rateLimits
	defer func() { t.limits = lim.all() }()
	st, err := p.Stream(llm.WithRateLimits(r.ctx, lim.add), req)
	if err != nil {
		return t, err
	}
	defer st.Close()
	stop := context.AfterFunc(r.ctx, func() { _ = st.Close() })
	defer stop()
	if sb, ok := st.(ServedStream); ok {
		if p, m := sb.ServedBy(); p != "" {
			t.provider, t.model = p, m
		}
	}
	var text strings.Builder
	for {
		ev, ok := st.Next()
		if !ok {
			break
		}
		switch ev.Kind {
		case llm.EvText:
			text.WriteString(ev.Text)
			if !r.emit(executor.Text(ev.Text)) {
				r.cancel()
			}
		case llm.EvThinking:
			if !r.emit(executor.Reasoning(ev.Text)) {
				r.cancel()
			}
		case llm.EvToolCall:
			if ev.Call != nil {
				t.calls = append(t.calls, *ev.Call)
			}
		case llm.EvDone:
			t.usage, t.complete = ev.Usage, true
		}
	}
	t.text = text.String()
	if err := st.Err(); err != nil {
		return t, err
	}
	if err := r.ctx.Err(); err != nil {
		return t, err
	}
	return t, nil
}

// emitCost reports one response's deltas.
func (r *run) emitCost(t turn) bool {
	model := t.model
	usd, local := turnPrice(t.provider, model, t.usage)
	u := t.usage
	return r.emit(executor.Event{
		Kind: executor.KindCost, CostUSD: usd, Local: local, Estimated: usd == nil, Model: model, Detail: t.provider,
		Usage: &executor.Usage{
			InputTokens:       u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens,
			OutputTokens:      u.OutputTokens,
			CachedInputTokens: u.CacheReadTokens,
		},
	})
}

// RepeatDenialLimit is how many policy denials in a row trip the run's
// repeat-denial breaker (any tool; a result that is not a denial resets
// the count).
const RepeatDenialLimit = 2

// runTools runs a turn's calls one after another. ok is false when the
// stream ended under us (the host stopped reading); tripped is the reason
// when the repeat-denial breaker tripped (the rest of the turn's calls are
// not run, and the run must end).
func (r *run) runTools(calls []llm.ToolCall) (results []llm.Block, ok bool, tripped string) {
	results = make([]llm.Block, 0, len(calls))
	for _, c := range calls {
		if tripped != "" {
			results = append(results, llm.Block{Type: llm.ToolResult, ID: c.ID, Text: "not run: the run was stopped by the repeat-denial breaker", IsError: true})
			continue
		}
		if r.isAborted() {
			results = append(results, llm.Block{Type: llm.ToolResult, ID: c.ID, Text: "not run: the run was aborted", IsError: true})
			continue
		}
		if !r.emit(executor.ToolCall(c.ID, c.Name, c.Input)) {
			return results, false, ""
		}
		o := r.tools.call(r.ctx, c)
		if !r.emit(executor.ToolResult(c.ID, c.Name, o.out, o.isErr)) {
			return results, false, ""
		}
		if o.denied != "" && !r.emit(executor.Error(deniedErrorCode(o.denied), c.Name+": "+o.out, false)) {
			return results, false, ""
		}
		results = append(results, llm.Block{Type: llm.ToolResult, ID: c.ID, Text: o.out, IsError: o.isErr})
		if o.denied == "" {
			r.denyStreak = 0
			continue
		}
		r.denyStreak++
		if r.denyStreak >= RepeatDenialLimit {
			tripped = fmt.Sprintf("stopped by the repeat-denial breaker: %d refused tool calls in a row (last: %s: %s)", r.denyStreak, c.Name, o.denied)
		}
	}
	return results, true, tripped
}

// Error codes of a refused tool call's error event: arguments that do not
// fit the tool (run_command's argv check, an MCP tool's invalid_args) are
// the model's mistake, not a policy's answer, and are labelled so; every
// other refusal is a policy denial.
const (
	codeInvalidArguments = "invalid_arguments"
	codePolicyDenied     = "policy_denied"
)

func deniedErrorCode(denied string) string {
	switch denied {
	case deniedInvalid, "invalid_args":
		return codeInvalidArguments
	}
	return codePolicyDenied
}

// finishError ends the run with a fatal error.
func (r *run) finishError(s session, msgs []llm.Message, code, msg string) {
	if !r.emit(executor.Error(code, msg, true)) {
		r.persist(s, msgs, "")
		return
	}
	r.finish(s, msgs, executor.DoneError, msg, "")
}

// finish is every terminal: the transcript first, then done.
func (r *run) finish(s session, msgs []llm.Message, reason executor.DoneReason, summary, handoff string) {
	r.persist(s, msgs, handoff)
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	r.emit(executor.Done(reason, summary))
}

func (r *run) persist(s session, msgs []llm.Message, handoff string) {
	if !s.keep {
		return
	}
	t := Transcript{
		Version: TranscriptVersion, SessionID: s.id, SessionKey: r.req.SessionKey,
		Messages: closeOpenCalls(msgs), Handoff: handoff,
	}
	if err := s.store.save(t, runSecrets(r.req.Env)); err != nil {
		r.a.opts.Log.Warn("native transcript not saved", "run", r.req.RunID, "session", s.id, "err", err)
	}
}

// provider is the agent's model provider, routed as its config says.
func (r *run) provider() (llm.Provider, error) {
	if r.a.opts.Providers == nil {
		return nil, errors.New("no model providers are configured")
	}
	return r.a.opts.Providers(r.ctx, r.cfg)
}

// announce emits the run's init status and the MCP servers it could not
// reach; false when the run's consumer is gone.
func (r *run) announce(s session) bool {
	if !r.emit(executor.Event{Kind: executor.KindStatus, Phase: executor.PhaseInit, Model: r.model, Detail: "session " + s.id}) {
		return false
	}
	for _, w := range r.warns {
		if !r.emit(executor.Error("mcp_unavailable", w, false)) {
			return false
		}
	}
	return true
}
