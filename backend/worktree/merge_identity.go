package worktree

import (
	"context"
	"strings"
)

// Clawboo's own identity: its task commits always, a merge or squash commit
// only when the repository has no user.name / user.email of its own.
const (
	clawbooName  = "Clawboo"
	clawbooEmail = "clawboo@localhost"
)

// Identity is who a merge or squash commit is by.
type Identity struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// UserIdentity is the repository's configured user.name and user.email as
// git sees them there (its own config, the user's global config and the
// system's), each falling back to Clawboo's when unset: a merge a person
// asked for is theirs.
func (m *Manager) UserIdentity(ctx context.Context, repo string) Identity {
	get := func(key, def string) string {
		r, err := m.gitCall(ctx, call{dir: repo, userIdentity: true, args: []string{"config", "--get", key}})
		v := strings.TrimSpace(r.out)
		if err != nil || v == "" || strings.ContainsAny(v, "<>\n\x00") {
			return def
		}
		return v
	}
	return Identity{Name: get("user.name", clawbooName), Email: get("user.email", clawbooEmail)}
}

// env sets id as both author and committer of a commit.
func (id Identity) env() map[string]string {
	return map[string]string{
		"GIT_AUTHOR_NAME": id.Name, "GIT_AUTHOR_EMAIL": id.Email,
		"GIT_COMMITTER_NAME": id.Name, "GIT_COMMITTER_EMAIL": id.Email,
	}
}

// CommitMessage is a merge or squash commit's message: subject on one line
// (the task's title), then the body, then the trailers ("Key: value"
// lines, e.g. "Clawboo-Agent: Coder (claude-code)"), each kept to one line.
func CommitMessage(subject, body string, trailers ...string) string {
	oneLine := func(s string) string {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == '\t' {
				return ' '
			}
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, s)
		return strings.Join(strings.Fields(s), " ")
	}
	msg := oneLine(subject)
	if b := strings.TrimSpace(strings.ReplaceAll(body, "\x00", "")); b != "" {
		msg += "\n\n" + b
	}
	var ts []string
	for _, t := range trailers {
		if t = oneLine(t); t != "" {
			ts = append(ts, t)
		}
	}
	if len(ts) > 0 {
		msg += "\n\n" + strings.Join(ts, "\n")
	}
	return msg
}
