package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/store"
)

// PortRange is where worktrees' port blocks come from: ports First..Last,
// handed out Block at a time. It is a setting (portRangeKey), changed
// through SetPortRange; leases already made keep their ports.
type PortRange struct {
	First int `json:"first"`
	Last  int `json:"last"`
	Block int `json:"block"`
}

// DefaultPortRange is 41000–41999 in blocks of 10: a hundred live worktrees.
var DefaultPortRange = PortRange{First: 41000, Last: 41999, Block: 10}

// ErrNoPorts is a port range with no free block left.
var ErrNoPorts = errors.New("no free port block")

const portRangeKey = "worktree.port_range"

// Validate refuses a range that cannot hold one block, or that reaches into
// the privileged ports.
func (r PortRange) Validate() error {
	switch {
	case r.First < 1024 || r.Last > 65535 || r.First > r.Last:
		return &RuleError{Code: "invalid", Msg: fmt.Sprintf("port range %d–%d: use 1024 ≤ first ≤ last ≤ 65535", r.First, r.Last)}
	case r.Block < 1 || r.Block > 1000:
		return &RuleError{Code: "invalid", Msg: fmt.Sprintf("port block %d: use 1 to 1000 ports", r.Block)}
	case r.Last-r.First+1 < r.Block:
		return &RuleError{Code: "invalid", Msg: fmt.Sprintf("port range %d–%d is smaller than one block of %d", r.First, r.Last, r.Block)}
	}
	return nil
}

// PortRange is the configured range, or the default.
func (b *Board) PortRange(ctx context.Context) (PortRange, error) {
	v, err := b.st.GetSetting(ctx, portRangeKey)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultPortRange, nil
	}
	if err != nil {
		return PortRange{}, err
	}
	var r PortRange
	if err := json.Unmarshal([]byte(v), &r); err != nil || r.Validate() != nil {
		b.log.Warn("port range setting unreadable; using the default", "value", v)
		return DefaultPortRange, nil
	}
	return r, nil
}

// SetPortRange saves the range new leases come from.
func (b *Board) SetPortRange(ctx context.Context, r PortRange) error {
	if err := r.Validate(); err != nil {
		return err
	}
	v, _ := json.Marshal(r)
	return b.st.PutSetting(ctx, portRangeKey, string(v), b.ms())
}

// LeasePorts gives a task's worktree its block of ports: the lease it
// already holds (after a restart, say), else the lowest free block of the
// range. Leases are rows of one table, chosen and written in one write
// transaction, so no two live worktrees ever share a port, even when the
// range changed between leases.
func (b *Board) LeasePorts(ctx context.Context, taskID string) ([]int, error) {
	r, err := b.PortRange(ctx)
	if err != nil {
		return nil, err
	}
	var first, count int
	err = b.st.InTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT first_port, count FROM port_leases WHERE task_id = ?`, taskID).Scan(&first, &count)
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT first_port, count FROM port_leases ORDER BY first_port`)
		if err != nil {
			return err
		}
		var taken [][2]int
		for rows.Next() {
			var f, c int
			if err := rows.Scan(&f, &c); err != nil {
				rows.Close()
				return err
			}
			taken = append(taken, [2]int{f, f + c - 1})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		first, count = freeBlock(r, taken, b.free), r.Block
		if first == 0 {
			return fmt.Errorf("%w in %d–%d (%d worktrees hold ports): finish or remove a task's worktree, or widen the range",
				ErrNoPorts, r.First, r.Last, len(taken))
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO port_leases(task_id, first_port, count, leased_at) VALUES (?, ?, ?, ?)`,
			taskID, first, count, b.ms())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lease ports for task %s: %w", taskID, err)
	}
	return portList(first, count), nil
}

// freeBlock is the first port of the lowest block of r overlapping none of
// taken (inclusive [lo, hi] pairs, sorted by lo) whose ports are all free
// right now (another program's server, Clawboo's own port), or 0.
func freeBlock(r PortRange, taken [][2]int, free func(int) bool) int {
	sort.Slice(taken, func(i, j int) bool { return taken[i][0] < taken[j][0] })
	for f := r.First; f+r.Block-1 <= r.Last; f += r.Block {
		hi, clash := f+r.Block-1, false
		for _, t := range taken {
			if t[0] <= hi && f <= t[1] {
				clash = true
				break
			}
		}
		for p := f; !clash && p <= hi; p++ {
			clash = !free(p)
		}
		if !clash {
			return f
		}
	}
	return 0
}

// portFree tries to bind port on the loopback address: a port another
// program (or Clawboo itself) listens on fails, whichever address it took.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// Holds reports whether the range holds port.
func (r PortRange) Holds(port int) bool { return port >= r.First && port <= r.Last }

// Ports is the task's leased ports, nil when it holds none.
func (b *Board) Ports(ctx context.Context, taskID string) ([]int, error) {
	var first, count int
	err := b.st.Read().QueryRowContext(ctx, `SELECT first_port, count FROM port_leases WHERE task_id = ?`, taskID).Scan(&first, &count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return portList(first, count), nil
}

// ReleasePorts frees a task's ports; releasing none is not an error.
func (b *Board) ReleasePorts(ctx context.Context, taskID string) error {
	_, err := b.st.Write().ExecContext(ctx, `DELETE FROM port_leases WHERE task_id = ?`, taskID)
	return err
}

func portList(first, count int) []int {
	out := make([]int, count)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// PortEnv is how a task's ports reach its setup, runtime, verify and
// teardown: CLAWBOO_PORT (the first) and CLAWBOO_PORTS (all, comma
// separated). nil for no ports.
func PortEnv(ports []int) map[string]string {
	if len(ports) == 0 {
		return nil
	}
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return map[string]string{"CLAWBOO_PORT": s[0], "CLAWBOO_PORTS": strings.Join(s, ",")}
}
