package backend

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/clawboo/desktop/internal/testkit"
)

// restartHome is one Clawboo home with the mock runtime (in worktrees) and
// its teams, and the backend open on it now. In the team Core the child is
// still running when the process ends; in the team Side it has ended and
// been reported up, but the leader's [Task Update] has not fired; in the
// team Fin (crashes only) the child's task has finished but the crash came
// before the orchestrator recorded its end.
type restartHome struct {
	home  string
	env   map[string]string
	b     *Backend
	teams []*restartTeam
}

// restartTeam is one team of a leader and one member.
type restartTeam struct {
	name, id      string
	lead, member  string // names
	leadID        string
	ended         bool   // the child ends before the restart
	unrecorded    bool   // …and the crash comes before its end is recorded
	msg           string // the person's message
	firstChildRun string
	before        []wirePost
}

func newRestartHome(t *testing.T, crash bool) *restartHome {
	t.Helper()
	home := t.TempDir()
	rh := &restartHome{home: home, env: map[string]string{
		"HOME": home, "PATH": os.Getenv("PATH"),
		"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1",
	}}
	rh.open(t)
	repo := e2eRepo(t)
	ctx := context.Background()
	h := authed(rh.b)
	all := []*restartTeam{
		// The child holds on for 5 s (long enough to be caught running,
		// short enough that its second run soon ends), then answers.
		{
			name: "Core", lead: "Lead", member: "Coder",
			msg: "!delegate @Coder kind=research Hold the line\\n!silent 5000\\n!ok child done\n!ok planned",
		},
		{
			name: "Side", lead: "Chief", member: "Helper", ended: true,
			msg: "!delegate @Helper kind=research Take a quick look\\n!ok child done\n!ok planned",
		},
	}
	if crash {
		all = append(all, &restartTeam{
			name: "Fin", lead: "Boss", member: "Doer", ended: true, unrecorded: true,
			msg: "!delegate @Doer kind=research Finish it off\\n!ok child done\n!ok planned",
		})
	}
	for _, tm := range all {
		ids := map[string]string{}
		for _, name := range []string{tm.lead, tm.member} {
			n, rt := name, "clawboo-mock"
			ag, err := rh.b.Agents.Create(ctx, agents.Input{Name: &n, Runtime: &rt})
			if err != nil {
				t.Fatal(err)
			}
			ids[name] = ag.ID
		}
		tm.leadID = ids[tm.lead]
		var created struct{ Team teams.Team }
		if code := e2eDo(t, h, "POST", "/api/teams", map[string]any{
			"name": tm.name, "leaderAgentId": tm.leadID,
			"brief": "Ship small changes.", "repoPath": repo,
		}, &created); code != http.StatusCreated {
			t.Fatalf("create team: %d", code)
		}
		if code := e2eDo(t, h, "POST", "/api/teams/"+created.Team.ID+"/agents", map[string]any{"agentId": ids[tm.member]}, &created); code != http.StatusOK {
			t.Fatalf("add %s: %d", tm.member, code)
		}
		tm.id = created.Team.ID
		rh.teams = append(rh.teams, tm)
	}
	return rh
}

// open starts a backend on the home, as a fresh process would.
func (rh *restartHome) open(t *testing.T) {
	t.Helper()
	rh.b = e2eBackendLogged(t, rh.home, rh.env, nil)
}

// close ends the backend as a process exit does (Close: the orchestrator
// shut down first, then the live runs stopped).
func (rh *restartHome) close(t *testing.T) {
	t.Helper()
	closeOnce(t, rh.b)
	rh.b = nil
}

// snapshot is the database as a crash at this instant would leave it:
// every committed transaction and nothing after (VACUUM INTO writes one
// consistent copy).
func (rh *restartHome) snapshot(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "crash.db")
	if _, err := rh.b.Store.Writer().Exec(`VACUUM INTO ?`, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// unrecord makes the snapshot the crash that came after an unrecorded
// team's child task finished (its run's result and the task's move are
// committed together) but before the orchestrator recorded the end: the
// delegation still running, no report-up post or comment. The posts the
// team had before the crash are then those without the report-up.
func (rh *restartHome) unrecord(t *testing.T, snap string) {
	t.Helper()
	db, err := sql.Open("sqlite", snap)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tm := range rh.teams {
		if !tm.unrecorded {
			continue
		}
		for _, q := range []string{
			`UPDATE delegations SET status = 'running', outcome = NULL WHERE team_id = ?1 AND status = 'ended'`,
			`DELETE FROM team_chat WHERE room_id = ?1 AND kind = 'peer' AND body LIKE 'Report on %'`,
			`DELETE FROM task_comments WHERE body LIKE 'Report on %' AND task_id IN (SELECT mission_id FROM delegations WHERE team_id = ?1)`,
		} {
			res, err := db.Exec(q, tm.id)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("%s: %d rows", q, n)
			}
		}
		kept := tm.before[:0]
		for _, p := range tm.before {
			if !strings.HasPrefix(p.Body, "Report on ") {
				kept = append(kept, p)
			}
		}
		tm.before = kept
	}
}

// crashTo puts a snapshot back as the home's database (with no WAL), once
// the backend that went on after it is closed: the next open sees the
// database exactly as the crash left it.
func (rh *restartHome) crashTo(t *testing.T, snap string) {
	t.Helper()
	if rh.b != nil {
		t.Fatal("crashTo with the backend still open")
	}
	db := filepath.Join(rh.home, "clawboo.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Rename(snap, db); err != nil {
		t.Fatal(err)
	}
}

func (rh *restartHome) posts(t *testing.T, tm *restartTeam) []wirePost {
	t.Helper()
	var out struct{ Posts []wirePost }
	if code := e2eDo(t, authed(rh.b), "GET", "/api/teams/"+tm.id+"/chat?after=0&limit=500", nil, &out); code != http.StatusOK {
		t.Fatalf("posts: %d", code)
	}
	return out.Posts
}

func (rh *restartHome) has(t *testing.T, tm *restartTeam, ok func(wirePost) bool) bool {
	t.Helper()
	for _, p := range rh.posts(t, tm) {
		if ok(p) {
			return true
		}
	}
	return false
}

// rooms shows every room, for a failure's message.
func (rh *restartHome) rooms(t *testing.T) string {
	var b strings.Builder
	for _, tm := range rh.teams {
		fmt.Fprintf(&b, "room %s:\n", tm.name)
		for _, p := range rh.posts(t, tm) {
			fmt.Fprintf(&b, "  #%d %s [%s] %s\n", p.Seq, p.AuthorName, p.Kind, p.Body)
		}
	}
	return b.String()
}

// delegationState is a team's one delegation as its row has it.
type delegationState struct {
	id, taskID, mission, status, childRun string
	failures                              int
}

func (rh *restartHome) delegation(t *testing.T, tm *restartTeam) delegationState {
	t.Helper()
	if n := rh.count(t, `SELECT COUNT(*) FROM delegations WHERE team_id = ?`, tm.id); n != 1 {
		t.Fatalf("team %s has %d delegations; want one", tm.name, n)
	}
	var d delegationState
	if err := rh.b.Store.Reader().QueryRow(`SELECT id, task_id, mission_id, status, COALESCE(child_run_id, ''), failures
		FROM delegations WHERE team_id = ?`, tm.id).Scan(&d.id, &d.taskID, &d.mission, &d.status, &d.childRun, &d.failures); err != nil {
		t.Fatal(err)
	}
	return d
}

func (rh *restartHome) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := rh.b.Store.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func (rh *restartHome) taskStatus(t *testing.T, id string) string {
	t.Helper()
	var task struct {
		Task struct{ Status string }
	}
	if code := e2eDo(t, authed(rh.b), "GET", "/api/board/"+id, nil, &task); code != http.StatusOK {
		t.Fatalf("task %s: %d", id, code)
	}
	return task.Task.Status
}

const teamTurns = `SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL`

// TestTeamRestartMidDelegation: a restart in the middle of a delegation
// loses nothing and delivers nothing twice. Each team's leader delegates a
// research task; the process ends while one child runs and just after
// another ended and was reported up (inside the 3 s window before its
// leader's [Task Update]). It ends as a clean exit (Close: the orchestrator
// shut down first, then the child stopped) or as a crash (the database
// exactly as it was at one instant, nothing after it written; the crash
// also catches a third child whose task finished before its end was
// recorded). On the next start:
//   - the child that was running is dispatched again by the pump (a new
//     run; the interrupted one is not counted as a failed start), and its
//     end is reported up once;
//   - a child that had ended is not run again; reported up already, it is
//     not reported again, and if its end was not recorded, it is recorded
//     and reported at start-up; its [Task Update] is delivered once;
//   - each leader takes exactly one follow-up turn, each room keeps every
//     post from before the restart, there is one report-up post and one
//     mission comment per delegation, and team_deliveries has each post
//     for each agent at most once (the report-up reaching the leader).
func TestTeamRestartMidDelegation(t *testing.T) {
	for _, c := range []struct {
		name  string
		crash bool
	}{{"exit", false}, {"crash", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			restartMidDelegation(t, c.crash)
		})
	}
}

func restartMidDelegation(t *testing.T, crash bool) {
	rh := newRestartHome(t, crash)
	show := func() string { return rh.rooms(t) }
	planned := func(tm *restartTeam) func(wirePost) bool {
		return func(p wirePost) bool { return p.AuthorName == tm.lead && p.Body == "planned" }
	}
	isReport := func(tm *restartTeam) func(wirePost) bool {
		return func(p wirePost) bool { return p.AuthorName == tm.member && strings.HasPrefix(p.Body, "Report on ") }
	}
	followUp := func(tm *restartTeam) func(wirePost) bool {
		return func(p wirePost) bool { return p.AuthorName == tm.lead && p.Body == "mock run complete" }
	}
	for _, tm := range rh.teams {
		if code := e2eDo(t, authed(rh.b), "POST", "/api/teams/"+tm.id+"/chat", map[string]any{"message": tm.msg}, nil); code != http.StatusAccepted {
			t.Fatalf("chat %s: %d", tm.name, code)
		}
	}
	for _, tm := range rh.teams {
		testkit.Eventually(t, 20*time.Second, tm.lead+"'s reply", func() bool { return rh.has(t, tm, planned(tm)) }, show)
		if tm.ended {
			testkit.Eventually(t, 20*time.Second, tm.member+"'s report-up", func() bool { return rh.has(t, tm, isReport(tm)) }, show)
		} else {
			testkit.Eventually(t, 20*time.Second, tm.member+" running", func() bool {
				d := rh.delegation(t, tm)
				return d.status == "running" && d.childRun != "" &&
					rh.count(t, `SELECT COUNT(*) FROM runs WHERE id = ? AND status = 'running'`, d.childRun) == 1
			}, show)
		}
	}
	for _, tm := range rh.teams {
		d := rh.delegation(t, tm)
		if want := map[bool]string{true: "ended", false: "running"}[tm.ended]; d.status != want {
			t.Fatalf("team %s's delegation before the restart: %+v (want %s: the 3 s window passed?)", tm.name, d, want)
		}
		tm.firstChildRun = d.childRun
		tm.before = rh.posts(t, tm)
	}
	var snap string
	if crash {
		snap = rh.snapshot(t)
		rh.unrecord(t, snap)
	}
	rh.close(t)
	if crash {
		rh.crashTo(t, snap)
	}

	// The next start. Right after it (the pump's first pass is 10 s away,
	// the [Task Update] window 3 s) the interrupted delegation waits to be
	// dispatched again and the ended ones for their update (the
	// unrecorded end was recorded and reported up at start-up).
	rh.open(t)
	for _, tm := range rh.teams {
		if n := rh.count(t, teamTurns, tm.id); n != 1 {
			t.Fatalf("team %s: %d team turns right after the restart; want the first only", tm.name, n)
		}
		d := rh.delegation(t, tm)
		if tm.ended {
			if d.status != "ended" || d.childRun != tm.firstChildRun {
				t.Fatalf("the ended delegation after the restart: %+v", d)
			}
			if tm.unrecorded && !rh.has(t, tm, isReport(tm)) {
				t.Fatalf("the unrecorded end was not reported up at start-up\n%s", show())
			}
			continue
		}
		if d.status != "pending" || d.failures != 0 {
			t.Fatalf("the interrupted delegation after the restart: %+v (want pending, no failure counted)", d)
		}
		var st string
		if err := rh.b.Store.Reader().QueryRow(`SELECT status FROM runs WHERE id = ?`, tm.firstChildRun).Scan(&st); err != nil ||
			(st != "aborted" && st != "failed") {
			t.Fatalf("the interrupted child run after the restart: %q %v", st, err)
		}
		if st := rh.taskStatus(t, d.taskID); st != "todo" {
			t.Fatalf("the interrupted child's task after the restart: %s (want todo: its claim released)", st)
		}
	}

	// Each leader's follow-up turn on its [Task Update].
	for _, tm := range rh.teams {
		testkit.Eventually(t, 40*time.Second, tm.lead+"'s follow-up turn", func() bool { return rh.has(t, tm, followUp(tm)) }, show)
	}
	// A second [Task Update] would be armed by a second report and fire
	// within one window: wait one out before counting.
	time.Sleep(orchestrate.UpdateWindow + 500*time.Millisecond)

	for _, tm := range rh.teams {
		d := rh.delegation(t, tm)
		if d.status != "reported" || d.failures != 0 {
			t.Fatalf("team %s's delegation at the end: %+v", tm.name, d)
		}
		childRuns := rh.count(t, `SELECT COUNT(*) FROM runs WHERE task_id = ?`, d.taskID)
		switch {
		case tm.ended && (childRuns != 1 || d.childRun != tm.firstChildRun):
			t.Fatalf("the ended child ran again: %d runs, last %s (first %s)", childRuns, d.childRun, tm.firstChildRun)
		case !tm.ended && (childRuns != 2 || d.childRun == tm.firstChildRun):
			t.Fatalf("the interrupted child was not dispatched again once: %d runs, last %s (first %s)", childRuns, d.childRun, tm.firstChildRun)
		case !tm.ended && rh.count(t, `SELECT COUNT(*) FROM runs WHERE id = ? AND status = 'succeeded'`, d.childRun) != 1:
			t.Fatal("the second child run did not succeed")
		}
		if st := rh.taskStatus(t, d.taskID); st != "done" {
			t.Fatalf("the child task at the end: %s", st)
		}

		after := rh.posts(t, tm)
		// Nothing from before the restart is lost: every post is still
		// there, as it was.
		bySeq := map[int64]wirePost{}
		for _, p := range after {
			bySeq[p.Seq] = p
		}
		for _, p := range tm.before {
			if q, ok := bySeq[p.Seq]; !ok || q.Kind != p.Kind || q.Body != p.Body || q.AuthorAgentID != p.AuthorAgentID {
				t.Fatalf("team %s: post %d lost or changed over the restart: %+v → %+v\n%s", tm.name, p.Seq, p, q, show())
			}
		}
		// One report-up, one follow-up reply, no system note (a failed
		// start or a turn that did not start would be one).
		var reports, replies, system []wirePost
		for _, p := range after {
			switch {
			case isReport(tm)(p):
				reports = append(reports, p)
			case followUp(tm)(p):
				replies = append(replies, p)
			case p.Kind == "system":
				system = append(system, p)
			}
		}
		if len(reports) != 1 || len(replies) != 1 || len(system) != 0 {
			t.Fatalf("team %s: %d report-ups, %d follow-up replies, %d system posts; want 1, 1, 0\n%s",
				tm.name, len(reports), len(replies), len(system), show())
		}
		// The report names the task by its title, never its id.
		if !strings.Contains(reports[0].Body, "child done") || !strings.HasPrefix(reports[0].Body, `Report on "`) || strings.Contains(reports[0].Body, d.taskID) {
			t.Fatalf("report-up %q", reports[0].Body)
		}
		if n := rh.count(t, teamTurns, tm.id); n != 2 {
			t.Fatalf("team %s: %d team turns; want the first and one follow-up", tm.name, n)
		}
		if n := rh.count(t, teamTurns+` AND title LIKE '[Task Update]%'`, tm.id); n != 1 {
			t.Fatalf("team %s: %d [Task Update] turns", tm.name, n)
		}
		comments, err := rh.b.Board.Comments(context.Background(), d.mission)
		if err != nil {
			t.Fatal(err)
		}
		ups := 0
		for _, c := range comments {
			if strings.HasPrefix(c.Body, "Report on ") {
				ups++
			}
		}
		if ups != 1 {
			t.Fatalf("team %s: %d report-up comments on the mission", tm.name, ups)
		}
		// Mail: each post reached each agent at most once, and the
		// report-up reached the leader (in its follow-up's digest).
		if n, distinct := rh.count(t, `SELECT COUNT(*) FROM team_deliveries WHERE room_id = ?`, tm.id),
			rh.count(t, `SELECT COUNT(*) FROM (SELECT DISTINCT room_id, agent_id, seq FROM team_deliveries WHERE room_id = ?)`, tm.id); n != distinct || n == 0 {
			t.Fatalf("team %s's team_deliveries: %d rows, %d distinct", tm.name, n, distinct)
		}
		if n := rh.count(t, `SELECT COUNT(*) FROM team_deliveries WHERE room_id = ? AND agent_id = ? AND seq = ?`,
			tm.id, tm.leadID, reports[0].Seq); n != 1 {
			t.Fatalf("team %s: the report-up was delivered to the leader %d times", tm.name, n)
		}
	}
}
