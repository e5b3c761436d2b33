package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/teams"
)

type seedAnswer struct {
	Team             teams.Team
	SuggestedMessage string
	Error            string
}

// TestWelcomeDemoTeamOnTheMock: with the mock runtime enabled the welcome
// offers a keyless demo team; its suggested message, sent as it is, makes
// the leader delegate, the member finish, and the report come up. Without
// the mock, neither the offer nor the route.
func TestWelcomeDemoTeamOnTheMock(t *testing.T) {
	off := e2eBackend(t, map[string]string{})
	var state struct{ Demo bool }
	if code := e2eDo(t, authed(off), "GET", "/api/onboarding/state", nil, &state); code != http.StatusOK || state.Demo {
		t.Fatalf("without the mock: %d demo=%v", code, state.Demo)
	}
	var refused seedAnswer
	if code := e2eDo(t, authed(off), "POST", "/api/onboarding/seed-demo-team", map[string]any{}, &refused); code != http.StatusConflict ||
		!strings.Contains(refused.Error, "CLAWBOO_ENABLE_MOCK_RUNTIME=1") {
		t.Fatalf("demo without the mock: %d %q", code, refused.Error)
	}

	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	h := authed(b)
	if code := e2eDo(t, h, "GET", "/api/onboarding/state", nil, &state); code != http.StatusOK || !state.Demo {
		t.Fatalf("with the mock: %d demo=%v", code, state.Demo)
	}
	var seeded seedAnswer
	if code := e2eDo(t, h, "POST", "/api/onboarding/seed-demo-team", map[string]any{"repoPath": e2eRepo(t)}, &seeded); code != http.StatusCreated {
		t.Fatalf("seed demo: %d %q", code, seeded.Error)
	}
	var names []string
	for _, m := range seeded.Team.Members {
		if m.Runtime != "clawboo-mock" {
			t.Fatalf("member %+v is not on the mock", m)
		}
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "Lead,Coder,Researcher" || seeded.Team.RepoPath == nil {
		t.Fatalf("demo team %+v", seeded.Team)
	}
	if code := e2eDo(t, h, "POST", "/api/teams/"+seeded.Team.ID+"/chat", map[string]any{"message": seeded.SuggestedMessage}, nil); code != http.StatusAccepted {
		t.Fatalf("send the suggested message: %d", code)
	}
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ps, _, _, err := teams.ReadPosts(ctx, b.Store, seeded.Team.ID, 0, "", 200)
		if err != nil {
			t.Fatal(err)
		}
		tasks, _ := b.Board.List(ctx, board.Filter{TeamID: seeded.Team.ID})
		var done, reported bool
		for _, tk := range tasks {
			done = done || tk.ParentID != nil && tk.Status == board.Done
		}
		for _, p := range ps {
			reported = reported || strings.Contains(p.Body, "Say hello to the person") && strings.Contains(p.Body, "done")
		}
		if done && reported {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's delegation did not finish and report: tasks %+v posts %+v", tasks, ps)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWelcomeCoderMayAskToRunCommands: the welcome's switch turns the
// shell on for the Coder only; left off, no member has it.
func TestWelcomeCoderMayAskToRunCommands(t *testing.T) {
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-welcome"})
	h := authed(b)
	for _, on := range []bool{true, false} {
		var seeded seedAnswer
		if code := e2eDo(t, h, "POST", "/api/onboarding/seed-native-team", map[string]any{"provider": "anthropic", "coderShell": on}, &seeded); code != http.StatusCreated {
			t.Fatalf("seed (coderShell %v): %d %q", on, code, seeded.Error)
		}
		for _, m := range seeded.Team.Members {
			ag, err := b.Agents.Get(context.Background(), m.AgentID)
			if err != nil || ag.Config == nil {
				t.Fatal(m, err)
			}
			shell := ag.Config.Tools.Shell != nil && *ag.Config.Tools.Shell
			if want := on && m.Name == "Coder"; shell != want {
				t.Errorf("coderShell %v: %s has shell %v, want %v", on, m.Name, shell, want)
			}
		}
	}
}
