package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/redact"
)

// QuestionKind says what a person is asked.
type QuestionKind string

// Question kinds.
const (
	AskPermission QuestionKind = "permission" // session/request_permission
	AskCommand    QuestionKind = "command"    // terminal/create
)

// Question is one thing an agent asks a person to allow.
type Question struct {
	Kind  QuestionKind
	Title string // what it wants, in words
	Tool  string // the tool's title (permission)
	// Args are the tool's arguments as JSON, scrubbed and cut.
	Args string
	// Command is a terminal command line as a person should read it.
	Command string
	Folder  string
	// Always says the agent offers "allow always for this session".
	Always bool
	RunID  string
	Agent  string
	Team   string
}

// Outcome is a person's answer.
type Outcome string

// Outcomes.
const (
	Allowed       Outcome = "allowed"
	AllowedAlways Outcome = "allowed-always" // for the rest of this session
	Denied        Outcome = "denied"
	Expired       Outcome = "expired" // nobody answered: a rejection
)

// Answer is what came back.
type Answer struct {
	Outcome Outcome
	Note    string
}

// ask puts q to a person; no asker, or an error, is a denial.
func (r *run) ask(ctx context.Context, q Question) Answer {
	if r.a.opts.Ask == nil {
		return Answer{Outcome: Denied, Note: "no one can be asked"}
	}
	q.RunID, q.Agent, q.Team = string(r.req.RunID), r.req.AgentID, r.req.TeamID
	if q.Folder == "" {
		q.Folder = r.req.WorkDir
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.stopped:
			cancel() // a person's Stop withdraws the question
		case <-ctx.Done():
		}
	}()
	ans, err := r.a.opts.Ask(ctx, q)
	if err != nil {
		return Answer{Outcome: Denied, Note: "not asked: " + err.Error()}
	}
	return ans
}

// RequestPermission asks a person through the approvals queue and answers
// with the option the agent offered that matches: allow once, allow
// always (remembered for this session's tool), or reject; a run that is
// being stopped answers cancelled, as the protocol asks.
func (c *client) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	r := c.r
	title := ""
	if p.ToolCall.Title != nil {
		title = *p.ToolCall.Title
	}
	title = cut(cmp.Or(strings.TrimSpace(title), string(p.ToolCall.ToolCallId), "a tool"), 200)
	if r.stopping() {
		return cancelled(), nil
	}
	outcome := AllowedAlways // a person allowed this tool for the session
	if !r.alwaysAllowed(title) {
		q := Question{
			Kind: AskPermission, Title: title, Tool: title, Args: argsText(p.ToolCall.RawInput),
			Always: hasKind(p.Options, acpsdk.PermissionOptionKindAllowAlways),
		}
		r.status("waiting for your approval: " + title)
		ans := r.ask(ctx, q)
		outcome = ans.Outcome
		if outcome == AllowedAlways {
			r.allowAlways(title)
		}
	}
	if r.stopping() {
		return cancelled(), nil
	}
	id, ok := pickOption(p.Options, outcome)
	if !ok {
		return cancelled(), nil
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
		Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: id, Outcome: "selected"},
	}}, nil
}

func cancelled() acpsdk.RequestPermissionResponse {
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{
		Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"},
	}}
}

// pickOption chooses the offered option for an outcome: an allow answers
// with allow_once (allow_always when that was the answer and is offered),
// anything else with reject_once, else reject_always. false: nothing fits.
func pickOption(opts []acpsdk.PermissionOption, o Outcome) (acpsdk.PermissionOptionId, bool) {
	var prefs []acpsdk.PermissionOptionKind
	switch o {
	case AllowedAlways:
		prefs = []acpsdk.PermissionOptionKind{acpsdk.PermissionOptionKindAllowAlways, acpsdk.PermissionOptionKindAllowOnce}
	case Allowed:
		prefs = []acpsdk.PermissionOptionKind{acpsdk.PermissionOptionKindAllowOnce, acpsdk.PermissionOptionKindAllowAlways}
	default:
		prefs = []acpsdk.PermissionOptionKind{acpsdk.PermissionOptionKindRejectOnce, acpsdk.PermissionOptionKindRejectAlways}
	}
	for _, k := range prefs {
		for _, op := range opts {
			if op.Kind == k {
				return op.OptionId, true
			}
		}
	}
	return "", false
}

func hasKind(opts []acpsdk.PermissionOption, k acpsdk.PermissionOptionKind) bool {
	for _, op := range opts {
		if op.Kind == k {
			return true
		}
	}
	return false
}

// argsText is a tool's raw input as a person reads it: JSON, scrubbed of
// secret-looking tokens, cut.
func argsText(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return cut(redact.Secrets(string(b)), 2000)
}

// cut bounds s at n bytes (on a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
