package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// agent implements the SDK's acp.Agent; loaderAgent adds session/load,
// which the SDK offers only when the agent implements acp.AgentLoader.
type agent struct {
	cfg  config
	out  *output
	conn *acp.AgentSideConnection

	mu          sync.Mutex
	sessions    map[acp.SessionId]bool
	servers     map[acp.SessionId][]acp.McpServer // as session/new or /load gave them
	lastSession int
	lastAsk     int
}

type loaderAgent struct{ *agent }

var (
	_ acp.Agent       = (*agent)(nil)
	_ acp.AgentLoader = (*loaderAgent)(nil)
)

func (a *agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersion(a.cfg.version),
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:     a.cfg.load,
			McpCapabilities: acp.McpCapabilities{Http: a.cfg.mcpHTTP},
		},
		AgentInfo:   &acp.Implementation{Name: "fakeacp", Version: "1"},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acp.NewSessionResponse{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sessions) >= maxSessions {
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"error": "too many sessions"})
	}
	a.lastSession++
	id := acp.SessionId(fmt.Sprintf("fake-session-%d", a.lastSession))
	a.sessions[id] = true
	a.servers[id] = p.McpServers
	return acp.NewSessionResponse{SessionId: id}, nil
}

// LoadSession accepts any id, made here or not; the session then exists.
func (a *loaderAgent) LoadSession(_ context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.sessions[p.SessionId] && len(a.sessions) >= maxSessions {
		return acp.LoadSessionResponse{}, acp.NewInternalError(map[string]any{"error": "too many sessions"})
	}
	a.sessions[p.SessionId] = true
	a.servers[p.SessionId] = p.McpServers
	return acp.LoadSessionResponse{}, nil
}

func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return acp.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path", "cwd": cwd})
	}
	return nil
}

// Cancel needs nothing more: the SDK cancels the session's running
// Prompt context before calling it.
func (a *agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

// Prompt plays the turn's directives. Its context ends on session/cancel
// (or when the connection closes).
func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	known := a.sessions[p.SessionId]
	a.mu.Unlock()
	if !known {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session", "sessionId": p.SessionId})
	}
	t := &turn{a: a, sid: p.SessionId, ctx: ctx}
	reason, exit := t.play(parseDirectives(promptText(p.Prompt)))
	if exit >= 0 {
		a.out.exitAfterReply.Store(int64(exit))
	}
	return acp.PromptResponse{StopReason: reason}, nil
}

// promptText joins the prompt's text blocks with newlines.
func promptText(blocks []acp.ContentBlock) string {
	var texts []string
	for _, b := range blocks {
		if b.Text != nil {
			texts = append(texts, b.Text.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func (a *agent) nextAsk() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastAsk++
	return a.lastAsk
}
