package memory

import (
	"context"
	"database/sql"
	"sort"
	"strings"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/clawboo/desktop/backend/redact"
	"github.com/mark3labs/mcp-go/mcp"
)

// Search. fts ranks by SQLite FTS5 bm25 over title, content and tags
// (porter-stemmed); vector ranks by cosine similarity computed here over
// the newest vectorScanCap facts in scope, per embedder; hybrid fuses the
// lists by reciprocal rank fusion. Every list is cut at fusionDepth.

const (
	// vectorScanCap bounds the facts one vector search reads and compares
	// (the newest in scope): about 30 MB of 384-dim vectors and well under
	// a second; older facts are then found by fts only.
	vectorScanCap = 20000
	// fusionDepth is how many candidates each ranked list contributes.
	fusionDepth = 100
	// rrfK is the reciprocal rank fusion constant (score Σ 1/(k+rank)),
	// the customary 60: it lets agreement between lists outweigh a single
	// list's top rank.
	rrfK = 60
	// maxQueryTerms bounds the terms of one full-text query.
	maxQueryTerms = 32
	// reembedBatch is how many facts with another embedder's vector one
	// search re-embeds with the configured provider.
	reembedBatch = 32
)

type searchArgs struct {
	Query        string `json:"query"`
	Mode         string `json:"mode"`
	Limit        int    `json:"limit"`
	ScopeTeamID  string `json:"scopeTeamId"`
	ScopeAgentID string `json:"scopeAgentId"`
}

// ranked is one candidate of a ranked list, best first.
type ranked struct {
	seq   int64
	score float64
}

func (m *Server) search(ctx context.Context, c toolcall.Caller, a searchArgs) *mcp.CallToolResult {
	if r := m.unavailable(); r != nil {
		return r
	}
	switch {
	case strings.TrimSpace(a.Query) == "":
		return toolcall.InvalidArgs("query is required")
	case len(a.Query) > maxQueryBytes:
		return toolcall.InvalidArgs("query is longer than %d bytes", maxQueryBytes)
	case a.Mode != "" && a.Mode != "fts" && a.Mode != "vector" && a.Mode != "hybrid":
		return toolcall.InvalidArgs("mode is fts, vector or hybrid")
	case a.Limit < 0 || a.Limit > maxSearchLimit:
		return toolcall.InvalidArgs("limit is 1..%d", maxSearchLimit)
	}
	if a.Mode == "" {
		a.Mode = "hybrid"
	}
	if a.Limit == 0 {
		a.Limit = defSearchLimit
	}
	sc, r := resolveRead(c, a.ScopeTeamID, a.ScopeAgentID)
	if r != nil {
		return r
	}
	hits, used, err := m.rank(ctx, sc, redact.Secrets(a.Query), a.Mode)
	if err != nil {
		return toolcall.Error("memory_search: " + err.Error())
	}
	if len(hits) > a.Limit {
		hits = hits[:a.Limit]
	}
	items, truncated, err := m.loadHits(ctx, sc, hits)
	if err != nil {
		return toolcall.Error("memory_search: " + err.Error())
	}
	out := map[string]any{"mode": a.Mode, "results": items, "count": len(items)}
	if used != nil {
		out["embedders"] = used
	}
	if truncated {
		out["truncated"] = true
	}
	return toolcall.JSON(out)
}

// hit is a fused result with the rank it had in each list (0: absent).
type hit struct {
	seq                int64
	score              float64
	ftsRank, vectorRnk int
}

// rank runs the mode's lists and fuses them; used names the embedders
// whose vectors were compared.
func (m *Server) rank(ctx context.Context, sc readScope, query, mode string) ([]hit, []string, error) {
	var fts []ranked
	var vecs [][]ranked
	var used []string
	var err error
	if mode != "vector" {
		if fts, err = m.ftsRanks(ctx, sc, query); err != nil {
			return nil, nil, err
		}
	}
	if mode != "fts" {
		if vecs, used, err = m.vectorRanks(ctx, sc, query); err != nil {
			return nil, nil, err
		}
	}
	lists := vecs
	if mode != "vector" {
		lists = append([][]ranked{fts}, vecs...)
	}
	hits := fuse(lists)
	ftsRank := rankOf(fts)
	vecRank := map[int64]int{}
	for _, l := range vecs {
		for s, r := range rankOf(l) {
			vecRank[s] = r
		}
	}
	for i := range hits {
		hits[i].ftsRank, hits[i].vectorRnk = ftsRank[hits[i].seq], vecRank[hits[i].seq]
	}
	return hits, used, nil
}

// fuse merges ranked lists: one list keeps its own scores; several are
// fused by reciprocal rank. Ties go to the newer fact.
func fuse(lists [][]ranked) []hit {
	var nonEmpty [][]ranked
	for _, l := range lists {
		if len(l) > 0 {
			nonEmpty = append(nonEmpty, l)
		}
	}
	score := map[int64]float64{}
	if len(nonEmpty) == 1 {
		for _, r := range nonEmpty[0] {
			score[r.seq] = r.score
		}
	} else {
		for _, l := range nonEmpty {
			for i, r := range l {
				score[r.seq] += 1 / float64(rrfK+i+1)
			}
		}
	}
	out := make([]hit, 0, len(score))
	for s, v := range score {
		out = append(out, hit{seq: s, score: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].seq > out[j].seq
	})
	return out
}

// rankOf maps a list's facts to their 1-based rank.
func rankOf(l []ranked) map[int64]int {
	m := make(map[int64]int, len(l))
	for i, r := range l {
		m[r.seq] = i + 1
	}
	return m
}

// ftsQuery turns free text into an FTS5 query: its words (stop words
// dropped unless nothing else is left), each quoted, joined by OR so a
// partial match still ranks. Words hold only letters and digits, so no
// FTS syntax gets through.
func ftsQuery(q string) string {
	all := words(q)
	var terms []string
	seen := map[string]bool{}
	for _, keepStop := range []bool{false, true} {
		for _, w := range all {
			if (keepStop || !stopWords[w]) && !seen[w] && len(terms) < maxQueryTerms {
				seen[w] = true
				terms = append(terms, `"`+w+`"`)
			}
		}
		if len(terms) > 0 {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// ftsRanks is the full-text list, best bm25 first (title weighs double).
func (m *Server) ftsRanks(ctx context.Context, sc readScope, query string) ([]ranked, error) {
	fq := ftsQuery(query)
	if fq == "" {
		return nil, nil
	}
	args := append([]any{fq}, sc.args()...)
	rows, err := m.st.Read().QueryContext(ctx, `SELECT f.seq, bm25(memory_facts_fts, 2.0, 1.0, 1.0) AS rank
		FROM memory_facts_fts JOIN memory_facts f ON f.seq = memory_facts_fts.rowid
		WHERE memory_facts_fts MATCH ? AND f.superseded_at IS NULL AND `+scopeWhere+`
		ORDER BY rank LIMIT ?`, append(args, fusionDepth)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.seq, &r.score); err != nil {
			return nil, err
		}
		r.score = -r.score // bm25 is lower-is-better
		out = append(out, r)
	}
	return out, rows.Err()
}

// vectorRanks compares the query with the newest vectorScanCap facts in
// scope: each fact against the query embedded by the same embedder (the
// configured one when it answers, the offline one always), one list per
// embedder. Facts whose vector is not the configured provider's are then
// re-embedded by it, a batch per search, so a fallback heals.
func (m *Server) vectorRanks(ctx context.Context, sc readScope, query string) ([][]ranked, []string, error) {
	qvecs := map[string][]float32{}
	off, _ := m.emb.offline.Embed(ctx, []string{query})
	qvecs[m.emb.offline.ID()] = off[0]
	primaryID := m.emb.primary.ID()
	providerUp := false
	if m.emb.hasProvider() {
		if v, err := m.emb.tryPrimary(ctx, []string{query}); err == nil {
			qvecs[primaryID], providerUp = v[0], true
		}
	}
	rows, err := m.st.Read().QueryContext(ctx, `SELECT f.seq, f.embedder, f.embedding_dim, f.embedding
		FROM memory_facts f WHERE f.superseded_at IS NULL AND f.embedding IS NOT NULL AND `+scopeWhere+`
		ORDER BY f.seq DESC LIMIT ?`, append(sc.args(), vectorScanCap)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	per := map[string][]ranked{}
	var stale []int64
	var buf []float32
	for rows.Next() {
		var seq int64
		var emb string
		var dim int
		var blob sql.RawBytes
		if err := rows.Scan(&seq, &emb, &dim, &blob); err != nil {
			return nil, nil, err
		}
		if providerUp && emb != primaryID && len(stale) < reembedBatch {
			stale = append(stale, seq)
		}
		qv, ok := qvecs[emb]
		if !ok || len(qv) != dim {
			continue
		}
		if buf, err = decodeVector(blob, dim, buf); err != nil {
			continue
		}
		if s := dot(qv, buf); s > 0 {
			per[emb] = append(per[emb], ranked{seq: seq, score: s})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows.Close()
	var lists [][]ranked
	var used []string
	for _, id := range []string{primaryID, m.emb.offline.ID()} {
		l, ok := per[id]
		if !ok || (len(used) > 0 && used[0] == id) {
			continue
		}
		sort.SliceStable(l, func(i, j int) bool { return l[i].score > l[j].score })
		if len(l) > fusionDepth {
			l = l[:fusionDepth]
		}
		lists, used = append(lists, l), append(used, id)
	}
	if len(stale) > 0 {
		m.reembed(ctx, stale)
	}
	return lists, used, nil
}
