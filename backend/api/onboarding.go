package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/teams"
)

// settingOnboardingSkipped records that the person skipped the welcome.
const settingOnboardingSkipped = "onboarding-skipped"

// The seeded team: a leader who delegates and two specialists, shell off.
var seedMembers = []struct{ name, prompt string }{
	{"Lead", "You lead a small software team. Turn the person's request into a few concrete tasks and delegate each one to the " +
		"member best suited (code changes to @Coder, reading and research to @Researcher) with the delegate tool. Do not do the " +
		"members' work yourself. When a [Task Update] arrives, tell the person in a few sentences what was done and what is next."},
	{"Coder", "You are a careful software engineer. Work only in the task's repository with the file tools: read before you change, " +
		"keep the change small and focused, and end with a short summary of what you changed and why."},
	{"Researcher", "You research and explain. Read what the task points at, answer with your findings and a clear recommendation, " +
		"and say what you could not check."},
}

func (a *API) routeOnboarding() {
	a.mux.Handle("/api/onboarding/state", methods{"GET": a.onboardingState})
	a.mux.Handle("/api/onboarding/skip", methods{"POST": a.skipOnboarding})
	a.mux.Handle("/api/onboarding/seed-native-team", methods{"POST": a.seedNativeTeam})
	a.mux.Handle("/api/onboarding/seed-demo-team", methods{"POST": a.seedDemoTeam})
	// Forms (the welcome, New team, a team's settings) ask before they
	// change anything: see repocheck.go.
	a.mux.Handle("/api/repos/check", methods{"POST": a.checkRepoRoute})
}

type onboardingProvider struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Connected    bool   `json:"connected"`
	DefaultModel string `json:"defaultModel"`
	Keyless      bool   `json:"keyless"`
}

type onboardingSpecialist struct {
	Runtime string `json:"runtime"`
	Name    string `json:"name"`
	Ready   bool   `json:"ready"`
}

// specialistRuntimes are the CLI runtimes the welcome always names as
// members (ready or not); ACP agents are offered only once ready.
var specialistRuntimes = []executor.ID{executor.ClaudeCode, executor.Codex}

func (a *API) specialists(r *http.Request) []onboardingSpecialist {
	out := []onboardingSpecialist{}
	if a.opts.Catalog == nil {
		return out
	}
	for _, id := range specialistRuntimes {
		e, ok := a.opts.Catalog.Entry(r.Context(), id)
		if !ok {
			continue
		}
		out = append(out, onboardingSpecialist{Runtime: string(id), Name: e.Name, Ready: e.ConnectionState == runtimes.StateReady})
	}
	for _, d := range a.opts.Catalog.ListDescriptors() {
		if d.Family != runtimes.FamilyACP {
			continue
		}
		if e, ok := a.opts.Catalog.Entry(r.Context(), d.ID); ok && e.ConnectionState == runtimes.StateReady {
			out = append(out, onboardingSpecialist{Runtime: string(d.ID), Name: e.Name, Ready: true})
		}
	}
	return out
}

func (a *API) onboardingState(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) || !a.agentsReady(w) {
		return
	}
	n, err := a.opts.Teams.Count(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	_, err = a.opts.Store.GetSetting(r.Context(), settingOnboardingSkipped)
	skipped := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	ps := make([]onboardingProvider, 0, len(config.Providers))
	for _, p := range config.Providers {
		ps = append(ps, onboardingProvider{
			ID: p.ID, Name: p.Name, Connected: a.opts.Agents.ProviderConnected(p.ID),
			DefaultModel: p.DefaultModel, Keyless: p.Keyless(),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"needed": n == 0 && !skipped, "teams": n, "providers": ps, "specialists": a.specialists(r),
		"demo": a.mockReady(r),
	})
}

func (a *API) skipOnboarding(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Store.PutSetting(r.Context(), settingOnboardingSkipped, "1", 0); err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) seedNativeTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) || !a.agentsReady(w) {
		return
	}
	var body struct {
		Provider    string   `json:"provider"`
		Model       string   `json:"model"`
		RepoPath    string   `json:"repoPath"`
		Specialists []string `json:"specialists"`
		// CoderShell lets the Coder ask to run commands (each one asked
		// first); off unless the person ticked it, as for any agent.
		CoderShell bool `json:"coderShell"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	p, ok := config.ProviderByID(body.Provider)
	if !ok {
		writeError(w, http.StatusBadRequest, "unknown provider '%s'", truncate(body.Provider, 64))
		return
	}
	if !a.opts.Agents.ProviderConnected(p.ID) {
		what := "key"
		if p.Keyless() {
			what = "address"
		}
		writeError(w, http.StatusConflict, "%s is not connected: connect its %s first", p.Name, what)
		return
	}
	if !a.checkRepo(w, r, body.RepoPath) {
		return
	}
	offered := map[string]string{} // runtime → the member's name
	for _, s := range a.specialists(r) {
		offered[s.Runtime] = s.Name
	}
	if rt := a.unreadySpecialist(r, body.Specialists); rt != "" {
		writeError(w, http.StatusBadRequest, "specialist runtime '%s' is not ready on this machine", truncate(rt, 64))
		return
	}
	ctx := r.Context()
	var ids []string
	for _, m := range seedMembers {
		tools := map[string]any{"memory": true, "tools": false, "tasks": true, "teamchat": true}
		prompt := m.prompt
		if m.name == "Coder" && body.CoderShell {
			tools["shell"] = true
			prompt += " You may ask to run a command (tests, a build) with run_command; the person approves each one before it runs."
		}
		cfg, _ := json.Marshal(map[string]any{"systemPrompt": prompt, "tools": tools})
		name, rt, prov := m.name, agents.Native, p.ID
		in := agents.Input{Name: &name, Runtime: &rt, Provider: &prov, Config: cfg}
		if body.Model != "" {
			model := body.Model
			in.Model = &model
		}
		ag, err := a.opts.Agents.Create(ctx, in)
		if err != nil {
			agentError(w, "", err)
			return
		}
		ids = append(ids, ag.ID)
	}
	for _, rt := range body.Specialists {
		name, rtc := offered[rt], rt
		ag, err := a.opts.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rtc})
		if err != nil {
			agentError(w, "", err)
			return
		}
		ids = append(ids, ag.ID)
	}
	team, err := a.createSeedTeam(r, ids, body.RepoPath)
	if err != nil {
		teamError(w, "", err)
		return
	}
	msg := "Research the three most popular Go web frameworks and tell me which one you would pick for a small API, and why."
	if body.RepoPath != "" {
		msg = "Look at this repository: have @Coder make one small, useful improvement, and @Researcher write a short note on how the code is organised."
	}
	writeJSON(w, http.StatusCreated, map[string]any{"team": team, "suggestedMessage": msg})
}

// createSeedTeam makes "My team" (or "My team 2", …) led by the first id.
func (a *API) createSeedTeam(r *http.Request, ids []string, repo string) (teams.Team, error) {
	brief := "A small team: Lead plans and delegates, Coder changes code, Researcher reads and explains."
	var team teams.Team
	var err error
	for i := 1; i <= 50; i++ {
		name := "My team"
		if i > 1 {
			name = fmt.Sprintf("My team %d", i)
		}
		in := teams.Input{Name: &name, LeaderAgentID: &ids[0], Brief: &brief}
		if repo != "" {
			in.RepoPath = &repo
		}
		team, err = a.opts.Teams.Create(r.Context(), in)
		if !errors.Is(err, teams.ErrConflict) {
			break
		}
	}
	if err != nil {
		return teams.Team{}, err
	}
	for _, id := range ids[1:] {
		if team, err = a.opts.Teams.AddMember(r.Context(), team.ID, id); err != nil {
			return teams.Team{}, err
		}
	}
	return team, nil
}

// mockReady says whether the mock runtime is offered (the server started
// with CLAWBOO_ENABLE_MOCK_RUNTIME=1): then the welcome offers a demo team
// on it that needs no key.
func (a *API) mockReady(r *http.Request) bool {
	if a.opts.Catalog == nil {
		return false
	}
	e, ok := a.opts.Catalog.Entry(r.Context(), executor.Mock)
	return ok && e.ConnectionState == runtimes.StateReady
}

// seedDemoTeam makes the welcome's team on the mock runtime: the same
// three members, no key, no model; the suggested message is a script the
// mock plays (a delegation and its report-up), so a person can see the
// loop before connecting a provider.
func (a *API) seedDemoTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) || !a.agentsReady(w) {
		return
	}
	if !a.mockReady(r) {
		writeError(w, http.StatusConflict, "the demo runtime is not enabled on this server (start it with CLAWBOO_ENABLE_MOCK_RUNTIME=1)")
		return
	}
	var body struct {
		RepoPath string `json:"repoPath"`
	}
	if !decodeJSON(w, r, &body) || !a.checkRepo(w, r, body.RepoPath) {
		return
	}
	var ids []string
	for _, m := range seedMembers {
		name, rt := m.name, string(executor.Mock)
		ag, err := a.opts.Agents.Create(r.Context(), agents.Input{Name: &name, Runtime: &rt})
		if err != nil {
			agentError(w, "", err)
			return
		}
		ids = append(ids, ag.ID)
	}
	team, err := a.createSeedTeam(r, ids, body.RepoPath)
	if err != nil {
		teamError(w, "", err)
		return
	}
	// A research delegation: the mock plays it with or without worktrees.
	msg := "!delegate @Researcher kind=research Say hello to the person\\n!ok Hello from the Researcher.\n!ok I asked @Researcher to say hello."
	writeJSON(w, http.StatusCreated, map[string]any{"team": team, "suggestedMessage": msg})
}

// unreadySpecialist is the first of the asked specialist runtimes that is
// not ready on this machine, "" when all are.
func (a *API) unreadySpecialist(r *http.Request, asked []string) string {
	ready := map[string]bool{}
	for _, s := range a.specialists(r) {
		ready[s.Runtime] = s.Ready
	}
	for _, rt := range asked {
		if !ready[rt] {
			return rt
		}
	}
	return ""
}
