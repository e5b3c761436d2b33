package teams

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

const teamColumns = `id, name, leader_agent_id, brief, repo_path, created_at, updated_at, critic, fallback_runtime, merge_when_green, host_id`

func scanTeam(sc interface{ Scan(...any) error }) (Team, error) {
	var t Team
	var leader, repo sql.NullString
	var fallback, host string
	if err := sc.Scan(&t.ID, &t.Name, &leader, &t.Brief, &repo, &t.CreatedAt, &t.UpdatedAt, &t.Critic, &fallback, &t.MergeWhenGreen, &host); err != nil {
		return Team{}, err
	}
	if host != "" {
		t.HostID = &host
	}
	if fallback != "" {
		t.FallbackRuntime = &fallback
	}
	if leader.Valid {
		t.LeaderAgentID = &leader.String
	}
	if repo.Valid {
		t.RepoPath = &repo.String
	}
	t.Members = []Member{}
	return t, nil
}

// Get returns one team with its members.
func (s *Service) Get(ctx context.Context, id string) (Team, error) {
	t, err := scanTeam(s.st.Reader().QueryRowContext(ctx, `SELECT `+teamColumns+` FROM teams WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Team{}, ErrNotFound
	}
	if err != nil {
		return Team{}, err
	}
	ts := []Team{t}
	if err := s.members(ctx, ts); err != nil {
		return Team{}, err
	}
	return ts[0], nil
}

// Exists reports whether a team id names a team.
func (s *Service) Exists(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.st.Reader().QueryRowContext(ctx, `SELECT 1 FROM teams WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Count is how many teams exist.
func (s *Service) Count(ctx context.Context) (int, error) {
	var n int
	err := s.st.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM teams`).Scan(&n)
	return n, err
}

// List returns every team by name, with members.
func (s *Service) List(ctx context.Context) ([]Team, error) {
	rows, err := s.st.Reader().QueryContext(ctx, `SELECT `+teamColumns+` FROM teams ORDER BY name COLLATE NOCASE, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ts := []Team{}
	for rows.Next() {
		t, err := scanTeam(rows)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return ts, s.members(ctx, ts)
}

// TeamsOf returns the ids of the teams an agent belongs to.
func (s *Service) TeamsOf(ctx context.Context, agentID string) ([]string, error) {
	return s.st.Strings(ctx, `SELECT team_id FROM team_members WHERE agent_id = ? ORDER BY team_id`, agentID)
}

func (s *Service) members(ctx context.Context, ts []Team) error {
	if len(ts) == 0 {
		return nil
	}
	byID := map[string]*Team{}
	args := make([]any, 0, len(ts))
	for i := range ts {
		byID[ts[i].ID] = &ts[i]
		args = append(args, ts[i].ID)
	}
	rows, err := s.st.Reader().QueryContext(ctx, `SELECT m.team_id, a.id, a.name, a.runtime, a.model, a.host_id FROM team_members m
		JOIN agents a ON a.id = m.agent_id WHERE m.team_id IN (?`+strings.Repeat(",?", len(ts)-1)+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var team string
		var m Member
		var host string
		if err := rows.Scan(&team, &m.AgentID, &m.Name, &m.Runtime, &m.Model, &host); err != nil {
			return err
		}
		t := byID[team]
		if host != "" {
			m.HostID = &host
		} else {
			m.HostID = t.HostID // where the team runs
		}
		m.Role = "member"
		if t.LeaderAgentID != nil && *t.LeaderAgentID == m.AgentID {
			m.Role = "leader"
		}
		t.Members = append(t.Members, m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range ts {
		ms := ts[i].Members
		sort.SliceStable(ms, func(a, b int) bool {
			if (ms[a].Role == "leader") != (ms[b].Role == "leader") {
				return ms[a].Role == "leader"
			}
			return strings.ToLower(ms[a].Name) < strings.ToLower(ms[b].Name)
		})
	}
	return nil
}

// ErrAssignee is a delegation's assignee that names no single member; its
// message lists the members to choose from.
type ErrAssignee struct {
	Assignee string
	Reason   string // "unknown" or "ambiguous"
	Members  []string
}

func (e *ErrAssignee) Error() string {
	return fmt.Sprintf("%s assignee '%s': the members are %s", e.Reason, e.Assignee, strings.Join(e.Members, ", "))
}

// Resolve finds the one member an assignee names: an agent id, or a name
// with or without a leading '@' (ignoring case, then ignoring spaces,
// dashes and underscores). Anything else is an *ErrAssignee.
func (t Team) Resolve(assignee string) (Member, error) {
	a := strings.TrimPrefix(strings.TrimSpace(assignee), "@")
	names := make([]string, 0, len(t.Members))
	for _, m := range t.Members {
		names = append(names, "@"+m.Name)
	}
	for _, m := range t.Members {
		if m.AgentID == a {
			return m, nil
		}
	}
	for _, match := range []func(m Member) bool{
		func(m Member) bool { return strings.EqualFold(m.Name, a) },
		func(m Member) bool { return fold(m.Name) == fold(a) },
	} {
		var hits []Member
		for _, m := range t.Members {
			if match(m) {
				hits = append(hits, m)
			}
		}
		if len(hits) == 1 {
			return hits[0], nil
		}
		if len(hits) > 1 {
			return Member{}, &ErrAssignee{Assignee: assignee, Reason: "ambiguous", Members: names}
		}
	}
	return Member{}, &ErrAssignee{Assignee: assignee, Reason: "unknown", Members: names}
}

func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '.':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// Mentions reports whether body addresses name as a whole @mention
// (ignoring case): "@Bo," and "@Bo." name Bo, "@Bobby" does not.
func Mentions(body, name string) bool {
	if name == "" {
		return false
	}
	b, at := strings.ToLower(body), "@"+strings.ToLower(name)
	for i := 0; ; {
		j := strings.Index(b[i:], at)
		if j < 0 {
			return false
		}
		end := i + j + len(at)
		if r, _ := utf8.DecodeRuneInString(b[end:]); end == len(b) || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			return true
		}
		i = i + j + 1
	}
}

// PlacedOn names the teams whose members run on a host by default.
func (s *Service) PlacedOn(ctx context.Context, hostID string) ([]string, error) {
	names, err := s.st.Strings(ctx, `SELECT name FROM teams WHERE host_id = ? ORDER BY name`, hostID)
	if err != nil {
		return nil, fmt.Errorf("teams on a host: %w", err)
	}
	return names, nil
}
