package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/clawboo/desktop/backend/redact"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/oklog/ulid/v2"
)

type saveArgs struct {
	Content       string   `json:"content"`
	Title         string   `json:"title"`
	Tags          []string `json:"tags"`
	ProcedureName string   `json:"procedureName"`
	ScopeTeamID   string   `json:"scopeTeamId"`
	ScopeAgentID  string   `json:"scopeAgentId"`
}

// savedFact is memory_save's answer.
type savedFact struct {
	ID            string `json:"id"`
	Kind          string `json:"kind"`
	Title         string `json:"title"`
	ProcedureName string `json:"procedureName,omitempty"`
	Version       int    `json:"version,omitempty"`
	Supersedes    string `json:"supersedes,omitempty"`
	ScopeTeamID   string `json:"scopeTeamId,omitempty"`
	ScopeAgentID  string `json:"scopeAgentId,omitempty"`
	Embedder      string `json:"embedder"`
	// Redacted says the scrubber changed something before it was stored.
	Redacted bool `json:"redacted,omitempty"`
}

// fact is one row to insert, already scrubbed and checked.
type fact struct {
	kind, title, content, procName string
	tags                           []string
	team, agent                    sql.NullString
	embedder                       string
	vec                            []float32
}

func (m *Server) save(ctx context.Context, c toolcall.Caller, a saveArgs) *mcp.CallToolResult {
	if r := m.unavailable(); r != nil {
		return r
	}
	f, redacted, r := checkSave(c, a)
	if r != nil {
		return r
	}
	vecs, embID := m.emb.embed(ctx, []string{embedText(f.title, f.content, f.tags)})
	f.vec, f.embedder = vecs[0], embID
	out, err := m.insert(ctx, f)
	if err != nil {
		return toolcall.Error("memory_save: " + err.Error())
	}
	out.Redacted = redacted
	return toolcall.JSON(map[string]any{"saved": out})
}

// checkSave validates and scrubs memory_save's arguments; redacted says
// the scrubber changed something.
func checkSave(c toolcall.Caller, a saveArgs) (f fact, redacted bool, r *mcp.CallToolResult) {
	switch {
	case strings.TrimSpace(a.Content) == "":
		return f, false, toolcall.InvalidArgs("content is required")
	case len(a.Content) > maxContentBytes:
		return f, false, toolcall.InvalidArgs("content is %d bytes; at most %d", len(a.Content), maxContentBytes)
	case len(a.Title) > maxTitleBytes:
		return f, false, toolcall.InvalidArgs("title is longer than %d bytes", maxTitleBytes)
	case len(a.ProcedureName) > maxProcNameBytes:
		return f, false, toolcall.InvalidArgs("procedureName is longer than %d bytes", maxProcNameBytes)
	case len(a.Tags) > maxTags:
		return f, false, toolcall.InvalidArgs("at most %d tags", maxTags)
	}
	if f.team, f.agent, r = resolveWrite(c, a.ScopeTeamID, a.ScopeAgentID); r != nil {
		return f, false, r
	}
	scrub := func(s string) string {
		out := redact.Secrets(strings.TrimSpace(s))
		redacted = redacted || out != strings.TrimSpace(s)
		return out
	}
	f.content, f.title, f.procName = scrub(a.Content), scrub(a.Title), scrub(a.ProcedureName)
	if onlyRedacted(f.content) {
		return f, redacted, toolcall.Denied("secret_content", "refused: the content is nothing but a secret, which memory never stores",
			"Save what the secret is for and where it lives (for example the vault entry's name), not its value.")
	}
	seen := map[string]bool{}
	for _, t := range a.Tags {
		t = scrub(t)
		if t == "" || len(t) > maxTagBytes {
			return f, redacted, toolcall.InvalidArgs("tags are non-empty strings of at most %d bytes", maxTagBytes)
		}
		if !seen[t] {
			seen[t] = true
			f.tags = append(f.tags, t)
		}
	}
	f.kind = "fact"
	if f.procName != "" {
		f.kind = "procedure"
		if f.title == "" {
			f.title = f.procName
		}
	}
	if f.title == "" {
		return f, redacted, toolcall.InvalidArgs("a fact needs a title (or give procedureName to save a procedure)")
	}
	return f, redacted, nil
}

// onlyRedacted reports text with nothing left but [REDACTED] markers,
// spaces and punctuation.
func onlyRedacted(s string) bool {
	rest := strings.ReplaceAll(s, "[REDACTED]", "")
	return len(words(rest)) == 0 && strings.Contains(s, "[REDACTED]")
}

// embedText is what a fact's vector is made from.
func embedText(title, content string, tags []string) string {
	return title + "\n" + content + "\n" + strings.Join(tags, " ")
}

// insert stores f; a procedure supersedes the current version of the same
// name in the same scope.
func (m *Server) insert(ctx context.Context, f fact) (savedFact, error) {
	now := m.now()
	id := "mem_" + ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()
	tags, err := json.Marshal(append([]string{}, f.tags...))
	if err != nil {
		return savedFact{}, err
	}
	out := savedFact{
		ID: id, Kind: f.kind, Title: f.title, ProcedureName: f.procName,
		ScopeTeamID: f.team.String, ScopeAgentID: f.agent.String, Embedder: f.embedder,
	}
	err = m.st.InTx(ctx, func(tx *sql.Tx) error {
		q := m.st.Tx(tx)
		version := 1
		if f.kind == "procedure" {
			var seq int64
			var prevID string
			err := q.QueryRowContext(ctx, `SELECT seq, id, version FROM memory_facts
				WHERE procedure_name = ? AND COALESCE(team_id, '') = ? AND COALESCE(agent_id, '') = ? AND superseded_at IS NULL`,
				f.procName, f.team.String, f.agent.String).Scan(&seq, &prevID, &version)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				version = 0
			case err != nil:
				return err
			default:
				if _, err := q.ExecContext(ctx, `UPDATE memory_facts SET superseded_at = ? WHERE seq = ?`, now.UnixMilli(), seq); err != nil {
					return err
				}
				out.Supersedes = prevID
			}
			version++
			out.Version = version
		}
		_, err := q.ExecContext(ctx, `INSERT INTO memory_facts
			(id, kind, title, content, tags, procedure_name, version, team_id, agent_id, embedder, embedding_dim, embedding, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, f.kind, f.title, f.content, string(tags), nullStr(f.procName), version, f.team, f.agent,
			f.embedder, len(f.vec), encodeVector(f.vec), now.UnixMilli())
		return err
	})
	if err != nil {
		return savedFact{}, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// msTime renders a stored unix-ms time.
func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }
