package toolbroker

import (
	"context"
	"fmt"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/clawboo/desktop/backend/redact"
)

// Audit decisions.
const (
	decisionAllowed = "allowed"
	decisionDenied  = "denied"
	decisionExpired = "expired"
	decisionError   = "error"
)

// Bounds of what the audit keeps.
const (
	maxAuditSummary = 1024 // arguments, scrubbed
	maxAuditDetail  = 512  // why a call was refused or failed
	auditKeep       = 100_000
	auditPruneAt    = 1000 // prune once every this many rows
)

// toolAuditRow is one tools/call as the audit keeps it.
type toolAuditRow struct {
	Tool, Source, Risk         string
	AgentID, TeamID, Transport string
	Decision                   string
	Summary, Detail            string
	ApprovalID                 string
	DurationMS                 int64
}

// AuditEntry is one audit row as the API shows it (At in Unix ms).
type AuditEntry struct {
	ID         int64  `json:"id"`
	At         int64  `json:"at"`
	Tool       string `json:"tool"`
	Source     string `json:"source"`
	Risk       string `json:"risk"`
	AgentID    string `json:"agentId,omitempty"`
	TeamID     string `json:"teamId,omitempty"`
	Transport  string `json:"transport,omitempty"`
	Decision   string `json:"decision"`
	Summary    string `json:"summary"`
	Detail     string `json:"detail,omitempty"`
	ApprovalID string `json:"approvalId,omitempty"`
	// DurationMS is the whole call, a person's time to answer included.
	DurationMS int64 `json:"durationMs"`
}

// writeAudit stores a row. It runs after the call, under its own context
// (the caller may be gone), and never fails the call: a failure is logged.
// Summary and detail are scrubbed here as well, whatever the caller did.
func (b *Broker) writeAudit(a toolAuditRow) {
	if b.st == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var approval any
	if a.ApprovalID != "" {
		approval = a.ApprovalID
	}
	_, err := b.st.Write().ExecContext(ctx, `INSERT INTO tool_audit (at, tool, source, risk, agent_id, team_id, transport,
		decision, summary, detail, approval_id, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.now().UnixMilli(), cutBytes(a.Tool, 256), a.Source, a.Risk, a.AgentID, a.TeamID, a.Transport, a.Decision,
		cutBytes(redact.Secrets(a.Summary), maxAuditSummary), cutBytes(redact.Secrets(a.Detail), maxAuditDetail), approval, a.DurationMS)
	if err != nil {
		b.log.Warn("tool audit row not written", "tool", a.Tool, "decision", a.Decision, "err", err)
		return
	}
	if b.audits.Add(1)%auditPruneAt == 0 {
		if _, err := b.st.Write().ExecContext(ctx, `DELETE FROM tool_audit WHERE id <= (SELECT MAX(id) FROM tool_audit) - ?`, auditKeep); err != nil {
			b.log.Warn("tool audit not pruned", "err", err)
		}
	}
}

// Audit lists the newest audit rows first (limit 1..1000, default 100).
func (b *Broker) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	out := []AuditEntry{}
	if b.st == nil {
		return out, nil
	}
	rows, err := b.st.Read().QueryContext(ctx, `SELECT id, at, tool, source, risk, agent_id, team_id, transport, decision,
		summary, detail, COALESCE(approval_id, ''), duration_ms FROM tool_audit ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("tool audit: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.ID, &e.At, &e.Tool, &e.Source, &e.Risk, &e.AgentID, &e.TeamID, &e.Transport,
			&e.Decision, &e.Summary, &e.Detail, &e.ApprovalID, &e.DurationMS); err != nil {
			return nil, fmt.Errorf("tool audit: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// saveNote appends an agent's note (scrubbed).
func (b *Broker) saveNote(ctx context.Context, c toolcall.Caller, id, note string) error {
	_, err := b.st.Write().ExecContext(ctx, `INSERT INTO tool_notes (id, agent_id, team_id, note, created_at) VALUES (?, ?, ?, ?, ?)`,
		id, c.AgentID, c.TeamID, redact.Secrets(note), b.now().UnixMilli())
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("save note: %w", err)
	}
	return err
}
