package mcp

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The TeamChat server (clawboo-teamchat) lets a team's agents talk as named
// peers: each team has one room, whose id is the team id. Who posts comes
// from the session's signed binding only; a bound session that names
// another author, team or room in its arguments is refused as spoofing
// (refused rather than silently ignored, so a confused agent learns who it
// is). Posting and delegating need a binding with both an agent and a
// team. Posts are scrubbed of secrets before they are stored and wrapped
// (teams.Wrap) when they are read. Nothing is published: readers poll
// with team_chat_subscribe and a cursor.

// Tool names and post kinds.
const (
	toolPost      = "team_chat_post"
	toolSubscribe = "team_chat_subscribe"
	toolDelegate  = "team_delegate"

	kindPeer     = teams.KindPeer
	kindDelegate = teams.KindDelegate
)

// Bounds of the TeamChat tools.
const (
	MaxChatText         = 16 << 10 // bytes of one post or delegated task
	maxSubscribeLimit   = 500
	defaultSubscribeCap = 100
)

func newTeamChatServer(h *Hub) (*server.MCPServer, error) {
	s := h.newServer(TeamChat, server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		// team_delegate exists only for sessions signed with delegate=1;
		// the filter also refuses calls to it (mcp-go applies it to both).
		if toolcall.CallerFrom(ctx).Delegate {
			return tools
		}
		out := make([]mcp.Tool, 0, len(tools))
		for _, t := range tools {
			if t.Name != toolDelegate {
				out = append(out, t)
			}
		}
		return out
	}))
	tc := &teamChat{h: h}
	s.AddTool(mcp.NewTool(toolPost,
		mcp.WithDescription("Post a message to your team's room, where your teammates read it with team_chat_subscribe. "+
			"You post as the agent this session is bound to; authorAgentId, teamId and roomId may be omitted, and naming "+
			"anyone or anything else is refused as spoofing. Text is at most 16 KiB; secrets in it are redacted."),
		mcp.WithString("text", mcp.Required(), mcp.MaxLength(MaxChatText), mcp.Description("the message")),
		mcp.WithString("authorAgentId", mcp.Description("optional; must be your own agent id")),
		mcp.WithString("teamId", mcp.Description("optional; must be your own team id")),
		mcp.WithString("roomId", mcp.Description("optional; must be your team's room (its id is the team id)")),
		mcp.WithSchemaAdditionalProperties(false),
	), toolcall.Handler(tc.post))
	s.AddTool(mcp.NewTool(toolSubscribe,
		mcp.WithDescription("Read your team room's posts after sinceSeq, oldest first, leaving out your own. Pass the "+
			"returned nextSeq as sinceSeq next time to read only what is new. A bound session reads its own team's room; "+
			"naming another team, room or author is refused as spoofing. An unbound session names the team with teamId."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithInteger("sinceSeq", mcp.Min(0), mcp.Description("read posts with a higher sequence number (default 0: from the start)")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxSubscribeLimit), mcp.Description("most posts to return, 1..500 (default 100)")),
		mcp.WithString("authorAgentId", mcp.Description("optional; must be your own agent id (an unbound session: whose posts to leave out)")),
		mcp.WithString("teamId", mcp.Description("optional when bound (must be your own team); required when unbound")),
		mcp.WithString("roomId", mcp.Description("optional; the team's room (its id is the team id)")),
		mcp.WithSchemaAdditionalProperties(false),
	), toolcall.Handler(tc.subscribe))
	s.AddTool(mcp.NewTool(toolDelegate,
		mcp.WithDescription("Ask a teammate to take on a task. This records a delegation signal in your team's room; "+
			"Clawboo's orchestration decides whether and how the task is created and delivered. Task is at most 16 KiB."),
		mcp.WithString("assignee", mcp.Required(), mcp.Description("the teammate's agent id")),
		mcp.WithString("task", mcp.Required(), mcp.MaxLength(MaxChatText), mcp.Description("what to do, with enough context to start")),
		mcp.WithSchemaAdditionalProperties(false),
	), toolcall.Handler(tc.delegate))
	return s, nil
}

type teamChat struct{ h *Hub }

type postArgs struct {
	Text          string `json:"text"`
	AuthorAgentID string `json:"authorAgentId"`
	TeamID        string `json:"teamId"`
	RoomID        string `json:"roomId"`
}

type subscribeArgs struct {
	SinceSeq      *int64 `json:"sinceSeq"`
	Limit         *int   `json:"limit"`
	AuthorAgentID string `json:"authorAgentId"`
	TeamID        string `json:"teamId"`
	RoomID        string `json:"roomId"`
}

type delegateArgs struct {
	Assignee string `json:"assignee"`
	Task     string `json:"task"`
}

// wirePost is a post as team_chat_subscribe returns it.
type wirePost struct {
	Seq           int64  `json:"seq"`
	AuthorAgentID string `json:"authorAgentId"`
	Kind          string `json:"kind"`
	Wrapped       string `json:"wrapped"`
}

func (tc *teamChat) post(ctx context.Context, c Caller, a postArgs) *mcp.CallToolResult {
	if r := chatRequirePoster(c, toolPost); r != nil {
		return r
	}
	if r := chatRefuseSpoof(c, a.AuthorAgentID, a.TeamID, a.RoomID); r != nil {
		return r
	}
	text, r := chatCheckText("text", a.Text)
	if r != nil {
		return r
	}
	p := teams.Post{RoomID: c.TeamID, TeamID: c.TeamID, Author: c.AgentID, Kind: kindPeer, Body: text}
	seq, r := tc.store(ctx, p)
	if r != nil {
		return r
	}
	return toolcall.JSON(map[string]any{"posted": map[string]any{"seq": seq, "roomId": p.RoomID, "authorAgentId": p.Author}})
}

func (tc *teamChat) subscribe(ctx context.Context, c Caller, a subscribeArgs) *mcp.CallToolResult {
	since, limit := int64(0), defaultSubscribeCap
	if a.SinceSeq != nil {
		if since = *a.SinceSeq; since < 0 {
			return toolcall.InvalidArgs("sinceSeq must be 0 or more")
		}
	}
	if a.Limit != nil {
		if limit = *a.Limit; limit < 1 || limit > maxSubscribeLimit {
			return toolcall.InvalidArgs("limit must be between 1 and %d", maxSubscribeLimit)
		}
	}
	room, me := "", ""
	if c.Bound() {
		if c.TeamID == "" {
			return toolcall.Denied("no_team", "this session is bound to agent "+c.AgentID+" but to no team, so it has no room to read", "")
		}
		if r := chatRefuseSpoof(c, a.AuthorAgentID, a.TeamID, a.RoomID); r != nil {
			return r
		}
		room, me = c.TeamID, c.AgentID
	} else {
		if !toolcall.ValidID(a.TeamID) || !toolcall.ValidID(a.RoomID) || !toolcall.ValidID(a.AuthorAgentID) {
			return toolcall.InvalidArgs("ids are letters, digits, '_', '-', '.' and ':' (at most 128)")
		}
		switch {
		case a.TeamID != "" && a.RoomID != "" && a.TeamID != a.RoomID:
			return toolcall.InvalidArgs("roomId %q is not team %q's room (a team's room id is its team id)", a.RoomID, a.TeamID)
		case a.TeamID != "":
			room = a.TeamID
		default:
			room = a.RoomID
		}
		if room == "" {
			return toolcall.InvalidArgs("teamId is required: this session is not bound to a team")
		}
		me = a.AuthorAgentID
	}
	if tc.h.opts.Store == nil {
		return toolcall.Error("team chat is unavailable: this Clawboo has no database")
	}
	posts, roomMax, more, err := teams.ReadPosts(ctx, tc.h.opts.Store, room, since, me, limit)
	if err != nil {
		tc.h.opts.Log.Error("team chat read failed", "room", room, "err", err)
		return toolcall.Error("team chat is unavailable right now; try again")
	}
	out := make([]wirePost, len(posts))
	for i, p := range posts {
		out[i] = wirePost{Seq: p.Seq, AuthorAgentID: p.Author, Kind: p.Kind, Wrapped: teams.Wrap(p)}
	}
	// nextSeq = max(roomMaxSeq, sinceSeq): own posts past the page's end are
	// skipped too. A page cut short by limit stops at its last post instead,
	// so nothing is skipped unread.
	next := max(roomMax, since)
	if more {
		next = posts[len(posts)-1].Seq
	}
	res := map[string]any{"posts": out, "nextSeq": next}
	if more {
		res["more"] = true
	}
	return toolcall.JSON(res)
}

func (tc *teamChat) delegate(ctx context.Context, c Caller, a delegateArgs) *mcp.CallToolResult {
	if !c.Delegate {
		return toolcall.Denied("not_delegate", "team_delegate is not available to this session (it is not signed with delegate=1)", "")
	}
	if r := chatRequirePoster(c, toolDelegate); r != nil {
		return r
	}
	if a.Assignee == "" || len(a.Assignee) > 128 || strings.IndexFunc(a.Assignee, unicode.IsControl) >= 0 {
		return toolcall.InvalidArgs("assignee must be a member: its agent id or @Name (at most 128 characters)")
	}
	if a.Assignee == c.AgentID {
		return toolcall.InvalidArgs("you cannot delegate to yourself")
	}
	task, r := chatCheckText("task", a.Task)
	if r != nil {
		return r
	}
	if h := tc.h.opts.Team; h != nil {
		// The host acts on it and records it in the room itself, with the
		// assignee resolved to a member (a refused one is not recorded as
		// a delegation, only as the refusal).
		out, err := h.Delegate(ctx, c.TeamID, c.AgentID, a.Assignee, task)
		if err != nil {
			return toolcall.Error(err.Error())
		}
		return toolcall.JSON(map[string]any{"result": out})
	}
	p := teams.Post{RoomID: c.TeamID, TeamID: c.TeamID, Author: c.AgentID, Kind: kindDelegate, Body: task, Assignee: a.Assignee}
	seq, r := tc.store(ctx, p)
	if r != nil {
		return r
	}
	return toolcall.JSON(map[string]any{"delegated": map[string]any{"seq": seq, "roomId": p.RoomID, "assignee": p.Assignee}})
}

// store scrubs and appends a post.
func (tc *teamChat) store(ctx context.Context, p teams.Post) (int64, *mcp.CallToolResult) {
	if tc.h.opts.Store == nil {
		return 0, toolcall.Error("team chat is unavailable: this Clawboo has no database")
	}
	p.Body = redact.Secrets(p.Body)
	p.CreatedAt = tc.h.opts.Now().UnixMilli()
	seq, err := teams.AppendPost(ctx, tc.h.opts.Store, p)
	if err != nil {
		tc.h.opts.Log.Error("team chat post failed", "room", p.RoomID, "err", err)
		return 0, toolcall.Error("the post was not stored; try again")
	}
	if h := tc.h.opts.Team; h != nil {
		h.Posted(p.TeamID, seq)
	}
	return seq, nil
}

// chatRequirePoster refuses sessions that are not bound to both an agent and
// a team: a post must have an author and a room.
func chatRequirePoster(c Caller, tool string) *mcp.CallToolResult {
	switch {
	case c.AgentID != "" && c.TeamID != "":
		return nil
	case !c.Bound():
		return toolcall.Denied("unbound", tool+" needs a session bound to an agent and a team, and this one is unbound",
			"Agents get a bound session from the attach URL Clawboo gives their run; an unbound client can only read a room with team_chat_subscribe.")
	case c.AgentID == "":
		return toolcall.Denied("half_bound", tool+" needs a session bound to an agent and a team; this one is bound to team "+c.TeamID+" only", "")
	default:
		return toolcall.Denied("half_bound", tool+" needs a session bound to an agent and a team; this one is bound to agent "+c.AgentID+" only", "")
	}
}

// chatRefuseSpoof refuses arguments that name an author, team or room other
// than the bound session's own.
func chatRefuseSpoof(c Caller, author, team, room string) *mcp.CallToolResult {
	var bad []string
	if author != "" && author != c.AgentID {
		bad = append(bad, "authorAgentId "+chatClip(author))
	}
	if team != "" && team != c.TeamID {
		bad = append(bad, "teamId "+chatClip(team))
	}
	if room != "" && room != c.TeamID {
		bad = append(bad, "roomId "+chatClip(room))
	}
	if len(bad) == 0 {
		return nil
	}
	return toolcall.Denied("spoofing", "refused: this session acts as agent "+chatQuote(c.AgentID)+" in team "+chatQuote(c.TeamID)+
		", and "+strings.Join(bad, ", ")+" names someone or somewhere else",
		"Leave authorAgentId, teamId and roomId out: the session's binding decides them.")
}

func chatQuote(id string) string {
	if id == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", id)
}

// chatClip quotes an id taken from arguments, cut short: a refusal must not
// echo a long string back.
func chatClip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// chatCheckText bounds a post or task body.
func chatCheckText(field, s string) (string, *mcp.CallToolResult) {
	if len(s) > MaxChatText {
		return "", toolcall.InvalidArgs("%s is %d bytes; the limit is %d (16 KiB)", field, len(s), MaxChatText)
	}
	if strings.TrimSpace(s) == "" {
		return "", toolcall.InvalidArgs("%s is empty", field)
	}
	return s, nil
}
