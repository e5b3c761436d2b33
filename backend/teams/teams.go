// Package teams owns teams: a name, a leader, members on any runtime and a
// brief the leader and members read, and the resolution of "@Name" in a
// delegation to exactly one member.
//
// Invariants:
//   - Every team id used by tasks, runs, chat posts, budgets and spend names
//     a row here (migration 0009 turned the free-text ids into teams; the
//     API refuses an unknown one from then on).
//   - The leader, when set, is a member; removing the leader from the team
//     clears the leader (never a leader outside the team).
//   - Team names are unique ignoring case; ids are a slug of the name plus a
//     random suffix (^[a-z0-9-]{1,60}$) and never change.
//   - Resolve names exactly one member or fails with the members' names: an
//     unknown or ambiguous assignee never picks someone.
//   - No package-level mutable state.
package teams

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/slug"
	"github.com/clawboo/desktop/backend/store"
)

// Errors callers can match.
var (
	ErrInvalid  = errors.New("invalid")
	ErrNotFound = store.ErrNotFound
	ErrConflict = errors.New("conflict")
	// ErrNoAgent refuses a member or leader that is not an agent.
	ErrNoAgent = errors.New("unknown agent")
)

// Limits on what a person types.
const (
	MaxName  = 80
	MaxBrief = 8000
)

// Member is one agent of a team as the API shows it.
type Member struct {
	AgentID string `json:"agentId"`
	Name    string `json:"name"`
	Runtime string `json:"runtime"`
	Model   string `json:"model,omitempty"`
	Role    string `json:"role"` // leader or member
	// HostID is the host the member runs on: its own placement, else the
	// team's (nil: this computer).
	HostID *string `json:"hostId"`
}

// Team is a team with its members (leader first, then by name).
type Team struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	LeaderAgentID *string `json:"leaderAgentId"`
	Brief         string  `json:"brief"`
	RepoPath      *string `json:"repoPath"`
	// Critic lets auto-mode tasks of the team be reviewed after a green
	// verify (on by default; backend/review).
	Critic bool `json:"critic"`
	// MergeWhenGreen lets Clawboo merge every team task whose verify
	// passed into its base branch (off by default; a task can say so too).
	MergeWhenGreen bool `json:"mergeWhenGreen"`
	// FallbackRuntime is where the governor routes the team's work when
	// its member's runtime's usage window is spent and the member has no
	// fallback of its own (null: it waits instead).
	FallbackRuntime *string `json:"fallbackRuntime"`
	// HostID is where the team's members run unless one is placed on a
	// host of its own (nil: this computer).
	HostID    *string  `json:"hostId"`
	CreatedAt int64    `json:"createdAt"`
	UpdatedAt int64    `json:"updatedAt"`
	Members   []Member `json:"members"`
}

// Leader returns the leader member (ok false when the team has none).
func (t Team) Leader() (Member, bool) {
	for _, m := range t.Members {
		if m.Role == "leader" {
			return m, true
		}
	}
	return Member{}, false
}

// Member returns the member with this agent id.
func (t Team) Member(agentID string) (Member, bool) {
	for _, m := range t.Members {
		if m.AgentID == agentID {
			return m, true
		}
	}
	return Member{}, false
}

// Service reads and changes teams.
type Service struct {
	st  *store.Store
	now func() time.Time
}

// New makes the service; now defaults to time.Now.
func New(st *store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{st: st, now: now}
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Input is a create or a patch; nil fields are left alone. ClearLeader and
// ClearRepo clear those fields (a JSON null).
type Input struct {
	Name          *string
	LeaderAgentID *string
	ClearLeader   bool
	Brief         *string
	RepoPath      *string
	ClearRepo     bool
	Critic        *bool
	// MergeWhenGreen sets the team's merge-when-green switch.
	MergeWhenGreen *bool
	// FallbackRuntime sets the team's fallback runtime ("" clears it).
	FallbackRuntime *string
	// HostID sets where the team's members run unless placed themselves
	// ("" is this computer); the caller checks the host exists.
	HostID *string
}

func cleanName(n string) (string, error) {
	n = strings.TrimSpace(n)
	if n == "" {
		return "", invalid("name is required")
	}
	if utf8.RuneCountInString(n) > MaxName {
		return "", invalid("name is longer than %d characters", MaxName)
	}
	for _, r := range n {
		if unicode.IsControl(r) {
			return "", invalid("name has a control character")
		}
	}
	return n, nil
}

func check(in Input) error {
	if in.Brief != nil && utf8.RuneCountInString(*in.Brief) > MaxBrief {
		return invalid("brief is longer than %d characters", MaxBrief)
	}
	if in.RepoPath != nil && *in.RepoPath != "" && !filepath.IsAbs(*in.RepoPath) {
		return invalid("repoPath must be an absolute path")
	}
	return nil
}

// Create adds a team; its leader, when given, becomes its first member.
func (s *Service) Create(ctx context.Context, in Input) (Team, error) {
	if in.Name == nil {
		return Team{}, invalid("name is required")
	}
	name, err := cleanName(*in.Name)
	if err != nil {
		return Team{}, err
	}
	if err := check(in); err != nil {
		return Team{}, err
	}
	id := newID(name)
	now := s.now().UnixMilli()
	err = s.st.InTx(ctx, func(tx *sql.Tx) error {
		if err := nameFree(ctx, tx, name, ""); err != nil {
			return err
		}
		brief := ""
		if in.Brief != nil {
			brief = strings.TrimSpace(*in.Brief)
		}
		var repo any
		if in.RepoPath != nil && *in.RepoPath != "" {
			repo = *in.RepoPath
		}
		mwg := in.MergeWhenGreen != nil && *in.MergeWhenGreen
		if _, err := tx.ExecContext(ctx, `INSERT INTO teams(id, name, brief, repo_path, created_at, updated_at, merge_when_green) VALUES (?,?,?,?,?,?,?)`,
			id, name, brief, repo, now, now, mwg); err != nil {
			return err
		}
		if in.HostID != nil {
			if err := setHost(ctx, tx, id, *in.HostID); err != nil {
				return err
			}
		}
		if in.LeaderAgentID != nil && *in.LeaderAgentID != "" {
			return setLeader(ctx, tx, id, *in.LeaderAgentID, now)
		}
		return nil
	})
	if err != nil {
		return Team{}, err
	}
	return s.Get(ctx, id)
}

// Update patches a team.
func (s *Service) Update(ctx context.Context, id string, in Input) (Team, error) {
	if err := check(in); err != nil {
		return Team{}, err
	}
	now := s.now().UnixMilli()
	err := s.st.InTx(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, id); err != nil {
			return err
		}
		if in.Name != nil {
			name, err := cleanName(*in.Name)
			if err != nil {
				return err
			}
			if err := nameFree(ctx, tx, name, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET name = ? WHERE id = ?`, name, id); err != nil {
				return err
			}
		}
		if in.Brief != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET brief = ? WHERE id = ?`, strings.TrimSpace(*in.Brief), id); err != nil {
				return err
			}
		}
		if in.Critic != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET critic = ? WHERE id = ?`, *in.Critic, id); err != nil {
				return err
			}
		}
		if in.MergeWhenGreen != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET merge_when_green = ? WHERE id = ?`, *in.MergeWhenGreen, id); err != nil {
				return err
			}
		}
		if in.FallbackRuntime != nil {
			if fb := strings.TrimSpace(*in.FallbackRuntime); len(fb) > 64 || strings.Trim(fb, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
				return invalid("fallbackRuntime must be a runtime id")
			}
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET fallback_runtime = ? WHERE id = ?`, strings.TrimSpace(*in.FallbackRuntime), id); err != nil {
				return err
			}
		}
		if in.HostID != nil {
			if err := setHost(ctx, tx, id, *in.HostID); err != nil {
				return err
			}
		}
		if in.ClearRepo || in.RepoPath != nil {
			var repo any
			if !in.ClearRepo && *in.RepoPath != "" {
				repo = *in.RepoPath
			}
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET repo_path = ? WHERE id = ?`, repo, id); err != nil {
				return err
			}
		}
		switch {
		case in.ClearLeader:
			if _, err := tx.ExecContext(ctx, `UPDATE teams SET leader_agent_id = NULL WHERE id = ?`, id); err != nil {
				return err
			}
		case in.LeaderAgentID != nil:
			if err := setLeader(ctx, tx, id, *in.LeaderAgentID, now); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE teams SET updated_at = ? WHERE id = ?`, now, id)
		return err
	})
	if err != nil {
		return Team{}, err
	}
	return s.Get(ctx, id)
}

// setHost sets where a team's members run unless placed themselves ("":
// this computer).
func setHost(ctx context.Context, tx *sql.Tx, id, host string) error {
	if len(host) > 64 || strings.Trim(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		return invalid("hostId must be a host's id")
	}
	_, err := tx.ExecContext(ctx, `UPDATE teams SET host_id = ? WHERE id = ?`, host, id)
	return err
}

// Delete removes a team and its memberships. Tasks and runs keep their
// team id as history; the caller refuses while the team has live work.
func (s *Service) Delete(ctx context.Context, id string) error {
	res, err := s.st.Writer().ExecContext(ctx, `DELETE FROM teams WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// AddMember adds an agent to a team (adding one twice is a no-op).
func (s *Service) AddMember(ctx context.Context, teamID, agentID string) (Team, error) {
	now := s.now().UnixMilli()
	err := s.st.InTx(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, teamID); err != nil {
			return err
		}
		return addMember(ctx, tx, teamID, agentID, now)
	})
	if err != nil {
		return Team{}, err
	}
	return s.Get(ctx, teamID)
}

// RemoveMember removes an agent from a team; the leader's removal clears
// the leader.
func (s *Service) RemoveMember(ctx context.Context, teamID, agentID string) (Team, error) {
	now := s.now().UnixMilli()
	err := s.st.InTx(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, teamID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM team_members WHERE team_id = ? AND agent_id = ?`, teamID, agentID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: '%s' is not a member of this team", ErrNotFound, agentID)
		}
		_, err = tx.ExecContext(ctx, `UPDATE teams SET leader_agent_id = CASE WHEN leader_agent_id = ? THEN NULL ELSE leader_agent_id END,
			updated_at = ? WHERE id = ?`, agentID, now, teamID)
		return err
	})
	if err != nil {
		return Team{}, err
	}
	return s.Get(ctx, teamID)
}

func exists(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM teams WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

func nameFree(ctx context.Context, tx *sql.Tx, name, self string) error {
	var other string
	err := tx.QueryRowContext(ctx, `SELECT id FROM teams WHERE name = ? COLLATE NOCASE AND id <> ?`, name, self).Scan(&other)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: a team named '%s' already exists", ErrConflict, name)
}

func addMember(ctx context.Context, tx *sql.Tx, teamID, agentID string, now int64) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM agents WHERE id = ?`, agentID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w '%s'", ErrNoAgent, agentID)
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO team_members(team_id, agent_id, added_at) VALUES (?,?,?)`, teamID, agentID, now)
	return err
}

func setLeader(ctx context.Context, tx *sql.Tx, teamID, agentID string, now int64) error {
	if err := addMember(ctx, tx, teamID, agentID, now); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE teams SET leader_agent_id = ? WHERE id = ?`, agentID, teamID)
	return err
}

// newID is a slug of the name plus a random suffix.
func newID(name string) string {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return fmt.Sprintf("%s-%x", slug.Of(name, "team"), rnd)
}
