package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
)

// memoryItem is a fact or procedure as the tools show it.
type memoryItem struct {
	ID            string   `json:"id"`
	Kind          string   `json:"kind"` // fact | procedure
	Title         string   `json:"title"`
	Content       string   `json:"content"`
	Tags          []string `json:"tags"`
	ProcedureName string   `json:"procedureName,omitempty"`
	Version       int      `json:"version,omitempty"`
	ScopeTeamID   string   `json:"scopeTeamId,omitempty"`
	ScopeAgentID  string   `json:"scopeAgentId,omitempty"`
	Embedder      string   `json:"embedder,omitempty"`
	CreatedAt     string   `json:"createdAt"`
	// Search only: the mode's score (bm25 negated, cosine, or the fused
	// reciprocal-rank score) and the 1-based rank in each list.
	Score      float64 `json:"score,omitempty"`
	FTSRank    int     `json:"ftsRank,omitempty"`
	VectorRank int     `json:"vectorRank,omitempty"`
}

// itemCols are the columns scanItem reads, over memory_facts aliased f.
const itemCols = `f.seq, f.id, f.kind, f.title, f.content, f.tags, COALESCE(f.procedure_name, ''), f.version,
	COALESCE(f.team_id, ''), COALESCE(f.agent_id, ''), COALESCE(f.embedder, ''), f.created_at`

func scanItem(rows *sql.Rows) (int64, memoryItem, error) {
	var it memoryItem
	var seq, created int64
	var tags string
	err := rows.Scan(&seq, &it.ID, &it.Kind, &it.Title, &it.Content, &tags, &it.ProcedureName, &it.Version,
		&it.ScopeTeamID, &it.ScopeAgentID, &it.Embedder, &created)
	if err != nil {
		return 0, it, err
	}
	if err := json.Unmarshal([]byte(tags), &it.Tags); err != nil || it.Tags == nil {
		it.Tags = []string{}
	}
	if it.Kind != "procedure" {
		it.Version = 0
	}
	it.CreatedAt = msTime(created)
	return seq, it, nil
}

// budget keeps an answer under maxResultBytes: it admits items until
// their text passes the cap (the first always).
type budget struct{ used int }

func (b *budget) admit(it memoryItem) bool {
	n := len(it.Title) + len(it.Content) + 256
	if b.used > 0 && b.used+n > maxResultBytes {
		return false
	}
	b.used += n
	return true
}

// loadHits loads the hits' rows in hit order. The scope is applied again
// here, so no list can leak a fact the caller may not see.
func (m *Server) loadHits(ctx context.Context, sc readScope, hits []hit) (items []memoryItem, truncated bool, err error) {
	items = []memoryItem{}
	if len(hits) == 0 {
		return items, false, nil
	}
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		seqs[i] = h.seq
	}
	ids, _ := json.Marshal(seqs)
	rows, err := m.st.Read().QueryContext(ctx, `SELECT `+itemCols+` FROM memory_facts f
		WHERE f.seq IN (SELECT value FROM json_each(?)) AND `+scopeWhere, append([]any{string(ids)}, sc.args()...)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	bySeq := map[int64]memoryItem{}
	for rows.Next() {
		seq, it, err := scanItem(rows)
		if err != nil {
			return nil, false, err
		}
		bySeq[seq] = it
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	var b budget
	for _, h := range hits {
		it, ok := bySeq[h.seq]
		if !ok {
			continue
		}
		if !b.admit(it) {
			return items, true, nil
		}
		it.Score, it.FTSRank, it.VectorRank = h.score, h.ftsRank, h.vectorRnk
		items = append(items, it)
	}
	return items, false, nil
}

type browseArgs struct {
	Limit        int    `json:"limit"`
	ScopeTeamID  string `json:"scopeTeamId"`
	ScopeAgentID string `json:"scopeAgentId"`
}

func (m *Server) browse(ctx context.Context, c toolcall.Caller, a browseArgs) *mcp.CallToolResult {
	if r := m.unavailable(); r != nil {
		return r
	}
	if a.Limit < 0 || a.Limit > maxBrowseLimit {
		return toolcall.InvalidArgs("limit is 1..%d", maxBrowseLimit)
	}
	if a.Limit == 0 {
		a.Limit = defBrowseLimit
	}
	sc, r := resolveRead(c, a.ScopeTeamID, a.ScopeAgentID)
	if r != nil {
		return r
	}
	rows, err := m.st.Read().QueryContext(ctx, `SELECT `+itemCols+` FROM memory_facts f
		WHERE f.superseded_at IS NULL AND `+scopeWhere+` ORDER BY f.seq DESC LIMIT ?`, append(sc.args(), a.Limit)...)
	if err != nil {
		return toolcall.Error("memory_browse: " + err.Error())
	}
	defer rows.Close()
	items := []memoryItem{}
	truncated := false
	var b budget
	for rows.Next() {
		_, it, err := scanItem(rows)
		if err != nil {
			return toolcall.Error("memory_browse: " + err.Error())
		}
		if !b.admit(it) {
			truncated = true
			break
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return toolcall.Error("memory_browse: " + err.Error())
	}
	out := map[string]any{"items": items, "count": len(items)}
	if truncated {
		out["truncated"] = true
	}
	return toolcall.JSON(out)
}

// reembed gives facts a vector from the configured provider, replacing
// another embedder's. It is a repair: a failure is logged and left for a
// later search.
func (m *Server) reembed(ctx context.Context, seqs []int64) {
	ids, _ := json.Marshal(seqs)
	rows, err := m.st.Read().QueryContext(ctx, `SELECT f.seq, f.title, f.content, f.tags, COALESCE(f.embedder, '')
		FROM memory_facts f WHERE f.seq IN (SELECT value FROM json_each(?))`, string(ids))
	if err != nil {
		m.log.Warn("memory: re-embed", "err", err)
		return
	}
	type row struct {
		seq      int64
		embedder string
	}
	var todo []row
	var texts []string
	for rows.Next() {
		var r row
		var title, content, tagsJSON string
		if err := rows.Scan(&r.seq, &title, &content, &tagsJSON, &r.embedder); err != nil {
			break
		}
		var tags []string
		_ = json.Unmarshal([]byte(tagsJSON), &tags)
		todo, texts = append(todo, r), append(texts, embedText(title, content, tags))
	}
	rows.Close()
	if len(todo) == 0 {
		return
	}
	vecs, err := m.emb.tryPrimary(ctx, texts)
	if err != nil {
		return // tryPrimary logged it
	}
	id := m.emb.primary.ID()
	err = m.st.InTx(ctx, func(tx *sql.Tx) error {
		q := m.st.Tx(tx)
		for i, r := range todo {
			// Only if no one changed it meanwhile.
			if _, err := q.ExecContext(ctx, `UPDATE memory_facts SET embedder = ?, embedding_dim = ?, embedding = ?
				WHERE seq = ? AND COALESCE(embedder, '') = ?`, id, len(vecs[i]), encodeVector(vecs[i]), r.seq, r.embedder); err != nil {
				return fmt.Errorf("fact %d: %w", r.seq, err)
			}
		}
		return nil
	})
	if err != nil {
		m.log.Warn("memory: re-embed", "err", err)
	}
}
