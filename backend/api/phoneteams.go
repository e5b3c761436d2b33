package api

import (
	"context"
	"net/http"

	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/teams"
)

// The phone's view of the teams and the quota: each team's latest room
// posts and a box to write to it (as the person, through the same
// orchestrator as the room on the computer), and the quota windows.
//
//	GET  /m/api/teams               the teams
//	GET  /m/api/teams/{id}/chat     the room's latest posts
//	POST /m/api/teams/{id}/chat     {message} a post from the person
//	GET  /m/api/quota               the quota windows, with runtimes' names

// phoneLatest is how many of a room's posts the phone shows.
const phoneLatest = 20

func (p *phone) teamRoutes() {
	p.mux.HandleFunc("GET /m/api/teams", p.paired(p.a.listTeams))
	p.mux.HandleFunc("GET /m/api/teams/{id}/chat", p.paired(p.latestPosts))
	p.mux.HandleFunc("POST /m/api/teams/{id}/chat", p.paired(p.chat))
	p.mux.HandleFunc("GET /m/api/quota", p.paired(p.quota))
}

// latestPosts answers a room's last phoneLatest posts, oldest first.
func (p *phone) latestPosts(w http.ResponseWriter, r *http.Request) {
	a := p.a
	if !a.teamsReady(w) {
		return
	}
	id, ok := a.teamID(w, r)
	if !ok {
		return
	}
	_, last, _, err := teams.ReadPosts(r.Context(), a.opts.Store, id, 0, "", 1)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	ps, _, _, err := teams.ReadPosts(r.Context(), a.opts.Store, id, max(0, last-phoneLatest), "", phoneLatest)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"posts": a.postViews(r, id, ps)})
}

// chat is the person writing to a room from the phone: the room's own
// route, and the log says which phone.
func (p *phone) chat(w http.ResponseWriter, r *http.Request) {
	p.a.opts.Log.Info("a phone wrote to a team room", "team", r.PathValue("id"), "device", deviceOf(r).Name)
	p.a.teamChat(w, r)
}

// phonePost is the phone stream's "post" event: which room has a new post
// (the page reads the room again), never the post itself.
type phonePost struct {
	TeamID string `json:"teamId"`
	Seq    int64  `json:"seq"`
}

// forwardRooms and the quota's events join the phone's stream.
func (p *phone) forwardRooms(ctx context.Context, out chan<- streamEvent) {
	if o := p.a.opts.Orchestrator; o != nil && o.Posts != nil {
		forward(ctx, o.Posts.Subscribe(256), out, func(post teams.Post) (string, []byte) {
			return named[phonePost]("post")(phonePost{TeamID: post.TeamID, Seq: post.Seq})
		})
	}
	if p.a.opts.QuotaEvents != nil {
		forward(ctx, p.a.opts.QuotaEvents.Subscribe(64), out, named[quota.Event]("quota"))
	}
}

// quota answers the usage windows and the threshold, and the runtimes'
// names the page shows them under (the phone reads no other route).
func (p *phone) quota(w http.ResponseWriter, r *http.Request) {
	if !p.a.quotaReady(w) {
		return
	}
	q := p.a.opts.Quota
	names := map[string]string{}
	if p.a.opts.Catalog != nil {
		for _, d := range p.a.opts.Catalog.ListDescriptors() {
			names[string(d.ID)] = d.Name
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"threshold": q.Threshold(r.Context()), "windows": q.Windows(), "runtimeNames": names})
}
