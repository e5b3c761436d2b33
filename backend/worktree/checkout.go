package worktree

import "context"

// Checkout resolves repo to its checkout's top level (symlinks resolved),
// the folder a work-in-place task works in instead of a worktree. It
// checks the repository as Provision does and changes nothing.
func (m *Manager) Checkout(ctx context.Context, repo string) (string, error) {
	return m.resolveRepo(ctx, repo)
}
