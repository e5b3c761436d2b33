package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// MaxTeamMessage bounds one message to a team room (the TeamChat MCP's
// bound for a post).
const MaxTeamMessage = 16 << 10

func (a *API) routeTeams() {
	a.mux.Handle("/api/teams", methods{"GET": a.listTeams, "POST": a.createTeam})
	a.mux.Handle("/api/teams/{id}", methods{"GET": a.getTeam, "PATCH": a.patchTeam, "DELETE": a.deleteTeam})
	a.mux.Handle("/api/teams/{id}/agents", methods{"POST": a.addTeamMember})
	a.mux.Handle("/api/teams/{id}/agents/{agentId}", methods{"DELETE": a.removeTeamMember})
	a.mux.Handle("/api/teams/{id}/chat", methods{"GET": a.teamPosts, "POST": a.teamChat})
	a.mux.Handle("/api/teams/{id}/chat/stream", methods{"GET": a.teamStream})
	a.mux.Handle("/api/teams/{id}/chat/stop", methods{"POST": a.stopTeam})
	a.mux.Handle("/api/teams/{id}/mission", methods{"GET": a.teamMission})
	a.mux.Handle("/api/teams/{id}/members/{agentId}/stop", methods{"POST": a.stopTeamMember})
	a.routeOnboarding()
}

func (a *API) teamsReady(w http.ResponseWriter) bool {
	if a.opts.Teams == nil || a.opts.Orchestrator == nil {
		writeError(w, http.StatusServiceUnavailable, "teams are not available in this build")
		return false
	}
	return true
}

// teamError maps the teams package's errors to statuses.
func teamError(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, teams.ErrInvalid):
		writeError(w, http.StatusBadRequest, "%s", strings.TrimPrefix(err.Error(), "invalid: "))
	case errors.Is(err, teams.ErrNoAgent):
		writeError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, teams.ErrConflict):
		writeError(w, http.StatusConflict, "%s", strings.TrimPrefix(err.Error(), "conflict: "))
	case errors.Is(err, teams.ErrNotFound) && strings.Contains(err.Error(), "not a member"):
		writeError(w, http.StatusNotFound, "%s", strings.TrimPrefix(err.Error(), teams.ErrNotFound.Error()+": "))
	case errors.Is(err, teams.ErrNotFound):
		writeError(w, http.StatusNotFound, "unknown team '%s'", truncate(id, 64))
	case errors.Is(err, orchestrate.ErrNoLeader):
		writeError(w, http.StatusConflict, "%v", err)
	case errors.Is(err, orchestrate.ErrNoMember):
		writeError(w, http.StatusBadRequest, "%v", err)
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// teamBody is a create or patch; a JSON null clears leaderAgentId or
// repoPath.
type teamBody struct {
	Name          *string         `json:"name"`
	LeaderAgentID json.RawMessage `json:"leaderAgentId"`
	Brief         *string         `json:"brief"`
	RepoPath      json.RawMessage `json:"repoPath"`
	// Critic turns the critic's reviews of the team's auto-mode tasks on
	// or off (PATCH; a new team has it on).
	Critic *bool `json:"critic"`
	// MergeWhenGreen has Clawboo merge the team's verified changes.
	MergeWhenGreen *bool `json:"mergeWhenGreen"`
	// FallbackRuntime (PATCH; null or "" clears it) is where the governor
	// routes the team's work when a window is spent.
	FallbackRuntime json.RawMessage `json:"fallbackRuntime"`
	// HostID (null: this computer) is where the team's members run unless
	// one is placed on a host of its own.
	HostID json.RawMessage `json:"hostId"`
}

func nullable(raw json.RawMessage) (val *string, clear bool, err error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	if string(raw) == "null" {
		return nil, true, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, err
	}
	if s == "" {
		return nil, true, nil
	}
	return &s, false, nil
}

func (b teamBody) input() (teams.Input, error) {
	in := teams.Input{Name: b.Name, Brief: b.Brief, Critic: b.Critic, MergeWhenGreen: b.MergeWhenGreen}
	var err error
	if in.LeaderAgentID, in.ClearLeader, err = nullable(b.LeaderAgentID); err != nil {
		return in, errors.New("leaderAgentId must be a string or null")
	}
	if in.RepoPath, in.ClearRepo, err = nullable(b.RepoPath); err != nil {
		return in, errors.New("repoPath must be a string or null")
	}
	if in.FallbackRuntime, err = clearable(b.FallbackRuntime); err != nil {
		return in, errors.New("fallbackRuntime must be a runtime id or null")
	}
	if in.HostID, err = clearable(b.HostID); err != nil {
		return in, errors.New("hostId must be a host's id or null")
	}
	return in, nil
}

// clearable is nullable for a field whose "none" is "": a JSON null (or
// "") sets it to "", absence leaves it alone.
func clearable(raw json.RawMessage) (*string, error) {
	v, clear, err := nullable(raw)
	if clear {
		none := ""
		return &none, err
	}
	return v, err
}

// checkTeamHost refuses a team's host that is not one of the hosts.
func (a *API) checkTeamHost(w http.ResponseWriter, r *http.Request, in teams.Input) bool {
	if in.HostID == nil || *in.HostID == "" {
		return true
	}
	if a.opts.Hosts == nil {
		writeError(w, http.StatusBadRequest, "hosts are not available on this server")
		return false
	}
	if _, err := a.opts.Hosts.Get(r.Context(), *in.HostID); err != nil {
		writeError(w, http.StatusBadRequest, "unknown host '%s': add it in Settings → Hosts first", truncate(*in.HostID, 64))
		return false
	}
	return true
}

// teamID is the {id} path value of a team that exists (404 otherwise).
func (a *API) teamID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if ok, err := a.opts.Teams.Exists(r.Context(), id); err != nil || !ok {
		teamError(w, id, teams.ErrNotFound)
		return "", false
	}
	return id, true
}

// decodeTeam reads a create or patch body, answering 400 itself.
func decodeTeam(w http.ResponseWriter, r *http.Request) (teams.Input, bool) {
	var body teamBody
	if !decodeJSON(w, r, &body) {
		return teams.Input{}, false
	}
	in, err := body.input()
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return teams.Input{}, false
	}
	return in, true
}

// checkTeamRepo refuses a create or patch naming a repository that is not
// one (clearing it is always allowed).
func (a *API) checkTeamRepo(w http.ResponseWriter, r *http.Request, in teams.Input) bool {
	if in.ClearRepo || in.RepoPath == nil {
		return true
	}
	return a.checkRepo(w, r, *in.RepoPath)
}

// teamReply answers {team} with status, or the error for team id.
func teamReply(w http.ResponseWriter, status int, id string, t teams.Team, err error) {
	if err != nil {
		teamError(w, id, err)
		return
	}
	writeJSON(w, status, map[string]any{"team": t})
}

func (a *API) listTeams(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	ts, err := a.opts.Teams.List(r.Context())
	if err != nil {
		teamError(w, "", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"teams": ts})
}

func (a *API) createTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	in, ok := decodeTeam(w, r)
	if !ok || !a.checkTeamRepo(w, r, in) || !a.checkTeamHost(w, r, in) {
		return
	}
	t, err := a.opts.Teams.Create(r.Context(), in)
	teamReply(w, http.StatusCreated, "", t, err)
}

func (a *API) getTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	t, err := a.opts.Teams.Get(r.Context(), id)
	teamReply(w, http.StatusOK, id, t, err)
}

func (a *API) patchTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	in, ok := decodeTeam(w, r)
	if !ok || !a.checkTeamRepo(w, r, in) || !a.checkTeamHost(w, r, in) {
		return
	}
	t, err := a.opts.Teams.Update(r.Context(), id, in)
	teamReply(w, http.StatusOK, id, t, err)
}

func (a *API) deleteTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	if n := len(a.opts.Orchestrator.LiveTurns(id)); n > 0 || a.teamHasLiveTask(r, id) {
		writeError(w, http.StatusConflict, "team '%s' has live work: stop it first", truncate(id, 64))
		return
	}
	if err := a.opts.Teams.Delete(r.Context(), id); err != nil {
		teamError(w, id, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) teamHasLiveTask(r *http.Request, id string) bool {
	if a.opts.Board == nil {
		return false
	}
	return a.opts.Orchestrator.HasLiveTask(r.Context(), id)
}

func (a *API) addTeamMember(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	var body struct {
		AgentID string `json:"agentId"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.AgentID == "" {
		writeError(w, http.StatusBadRequest, "agentId is required")
		return
	}
	t, err := a.opts.Teams.AddMember(r.Context(), id, body.AgentID)
	teamReply(w, http.StatusOK, id, t, err)
}

func (a *API) removeTeamMember(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	t, err := a.opts.Teams.RemoveMember(r.Context(), id, r.PathValue("agentId"))
	teamReply(w, http.StatusOK, id, t, err)
}

// postView is a post as the API shows it: the author by name too.
type postView struct {
	Seq           int64   `json:"seq"`
	TeamID        string  `json:"teamId"`
	AuthorAgentID string  `json:"authorAgentId"`
	AuthorName    string  `json:"authorName"`
	Kind          string  `json:"kind"`
	Body          string  `json:"body"`
	Assignee      *string `json:"assignee"`
	AssigneeName  *string `json:"assigneeName"`
	TaskID        *string `json:"taskId"` // the task the post is about (teamroom.go)
	CreatedAt     int64   `json:"createdAt"`
}

// namer names authors: members by name, the person as "You".
type namer map[string]string

func (a *API) namerFor(r *http.Request, teamID string) namer {
	n := namer{teams.AuthorUser: "You", teams.AuthorSystem: "Clawboo"}
	if t, err := a.opts.Teams.Get(r.Context(), teamID); err == nil {
		for _, m := range t.Members {
			n[m.AgentID] = m.Name
		}
	}
	return n
}

func (n namer) view(p teams.Post) postView {
	v := postView{Seq: p.Seq, TeamID: p.TeamID, AuthorAgentID: p.Author, AuthorName: p.Author, Kind: p.Kind, Body: p.Body, CreatedAt: p.CreatedAt}
	if name, ok := n[p.Author]; ok {
		v.AuthorName = name
	}
	if p.Assignee != "" {
		as, name := p.Assignee, p.Assignee
		if known, ok := n[as]; ok {
			name = known
		}
		v.Assignee, v.AssigneeName = &as, &name
	}
	v.TaskID = postTask(p)
	return v
}

func (a *API) teamPosts(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id, ok := a.teamID(w, r)
	if !ok {
		return
	}
	after, limit := int64(0), 200
	q := r.URL.Query()
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "after must be a post's seq (0 or more)")
			return
		}
		after = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 500 {
			writeError(w, http.StatusBadRequest, "limit must be between 1 and 500")
			return
		}
		limit = n
	}
	ps, _, more, err := teams.ReadPosts(r.Context(), a.opts.Store, id, after, "", limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"posts": a.postViews(r, id, ps), "more": more})
}

// postViews are a room's posts as the API shows them.
func (a *API) postViews(r *http.Request, teamID string, ps []teams.Post) []postView {
	n := a.namerFor(r, teamID)
	out := make([]postView, len(ps))
	for i, p := range ps {
		out[i] = n.view(p)
	}
	return out
}

func (a *API) teamChat(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	var body struct {
		Message       string `json:"message"`
		TargetAgentID string `json:"targetAgentId"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if strings.TrimSpace(body.Message) == "" {
		writeError(w, http.StatusBadRequest, "message is required")
		return
	}
	if len(body.Message) > MaxTeamMessage {
		writeError(w, http.StatusBadRequest, "message is over %d bytes", MaxTeamMessage)
		return
	}
	p, runID, err := a.opts.Orchestrator.Chat(r.Context(), id, body.Message, body.TargetAgentID)
	var refusal *supervisor.Refusal
	switch {
	case err == nil:
	case p.Seq > 0 && errors.As(err, &refusal):
		status := http.StatusUnprocessableEntity
		if refusal.Reason == "budget_paused" || refusal.Reason == "conflict" {
			status = http.StatusConflict
		}
		body := refusalBody(refusal)
		body["post"] = a.namerFor(r, id).view(p)
		writeJSON(w, status, body)
		return
	case p.Seq > 0 && errors.Is(err, supervisor.ErrUnknownRuntime):
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "reason": "not_ready", "error": err.Error(), "post": a.namerFor(r, id).view(p)})
		return
	default:
		teamError(w, id, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"post": a.namerFor(r, id).view(p), "runId": runID})
}

func (a *API) stopTeam(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id, ok := a.teamID(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"stopped": a.opts.Orchestrator.Stop(r.Context(), id)})
}

func (a *API) stopTeamMember(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id, ok := a.teamID(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"stopped": a.opts.Orchestrator.StopMember(r.Context(), id, r.PathValue("agentId"))})
}

func (a *API) teamMission(w http.ResponseWriter, r *http.Request) {
	if !a.teamsReady(w) {
		return
	}
	id := r.PathValue("id")
	m, err := a.opts.Orchestrator.Mission(r.Context(), id, a.opts.TeamProbes)
	if err != nil {
		teamError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}
