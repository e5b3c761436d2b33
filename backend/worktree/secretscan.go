package worktree

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/clawboo/desktop/backend/proc"
)

// minScannedSecret is the shortest secret value looked for in a commit:
// shorter ones match ordinary text too often to refuse a commit over.
const minScannedSecret = 8

// scanLimit bounds the staged diff read for secrets (the rest is not read:
// a change that large is refused for it, never committed unread).
const scanLimit = 16 << 20

// ErrSecretInCommit matches (errors.Is) a commit refused because a staged
// file holds one of the task's secret values.
var ErrSecretInCommit = fmt.Errorf("%w: a task secret's value is in the change", errRefused)

// secretValues are the task's own secret values the commit must not hold
// (its vault secrets, as the task's environment gives them), by name.
func (m *Manager) secretValues(taskID string) map[string]string {
	out := map[string]string{}
	if m.taskEnv == nil {
		return out
	}
	for k, v := range m.taskEnv(taskID) {
		if !strings.HasPrefix(k, "CLAWBOO_") && !proc.HostOwned(k) && len(v) >= minScannedSecret {
			out[k] = v
		}
	}
	return out
}

// refuseStagedSecrets reads the staged change's added lines and, when one
// holds a secret value of the task, unstages everything (the files stay in
// the worktree, nothing is lost) and refuses, naming the files and the
// secret's name, never its value.
func (m *Manager) refuseStagedSecrets(ctx context.Context, w Worktree) error {
	secrets := m.secretValues(w.TaskID)
	if len(secrets) == 0 {
		return nil
	}
	c := w.in("diff", "--cached", "--no-color", "--no-ext-diff", "--text", "-U0", "--src-prefix=a/", "--dst-prefix=b/")
	c.limit = scanLimit
	r, err := m.gitCall(ctx, c)
	if err != nil {
		return err
	}
	files, names := map[string]bool{}, map[string]bool{}
	file := ""
	for _, line := range strings.Split(r.out, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
		case strings.HasPrefix(line, "+"):
			for name, v := range secrets {
				if strings.Contains(line, v) {
					files[file], names[name] = true, true
				}
			}
		}
	}
	if len(files) == 0 && !r.cut {
		return nil
	}
	if _, err := m.runIn(ctx, w, "reset", "-q"); err != nil {
		return fmt.Errorf("unstage a change holding a secret: %w", err)
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: the change is larger than %d MiB, too large to check for the task's secret values before committing", errRefused, scanLimit>>20)
	}
	return fmt.Errorf("%w: %s hold%s the value of %s; Clawboo did not commit it (the files are still in the worktree: remove the value, or stop the setup script from writing it)",
		ErrSecretInCommit, listed(files), plural(len(files)), "the task secret "+strings.Join(sorted(names), ", "))
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func listed(set map[string]bool) string {
	s := sorted(set)
	if len(s) > 5 {
		s = append(s[:5], fmt.Sprintf("and %d more", len(s)-5))
	}
	return strings.Join(s, ", ")
}

func plural(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
