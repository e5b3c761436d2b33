// Package worktree gives each code task its own git worktree, so agents
// never edit the user's working copy: provision, pause, complete, diff,
// verify, remove, garbage-collect, report disk use, and the conflict radar (radar.go).
//
// Layout: <Home>/worktrees/<repoHash>/<taskID> on branch
// clawboo/task-<taskID>, where repoHash is the first 12 hex digits of the
// sha1 of the repository's resolved top-level path. The hash folder also
// holds a ".repo" file naming that path, so disk use and GC can map a
// folder back to its repository without running git.
//
// What we remember, and where:
//   - The base commit of a task lives in the repository as the ref
//     refs/clawboo/base/<taskID>. It survives Pause (the worktree's private
//     git dir does not), keeps the base reachable for diffs, and is deleted
//     with the branch.
//   - A worktree's age (for GC) is the modification time of its ".git"
//     link file, which git writes once at `worktree add`; re-provisioning
//     after a pause makes it young again.
//
// Invariants:
//   - The user's working copy, index and current branch are never touched:
//     every command that writes runs inside our worktree, or updates only
//     refs under refs/heads/clawboo/ and refs/clawboo/ and the repository's
//     worktree registrations (Merge, asked by a person, also moves the task's
//     base branch: by compare-and-swap when no checkout has it, by git's
//     fast-forward of the checkout that has it, which writes only the
//     changed paths and is refused when uncommitted work, untracked or
//     ignored files included, is at one of them; see merge_checkout.go). Commands
//     run inside a worktree first check its
//     ".git" link and set GIT_CEILING_DIRECTORIES, so git can never walk up
//     into another repository (a dotfiles repo in $HOME, say).
//   - A worktree's files are the agent's, its ".git" link included. Every
//     git command we run inside one (and its verify command) first checks
//     that ".git" is a regular file naming <common>/worktrees/<name> of the
//     task's own repository, whose "gitdir" names this worktree back, and
//     git is then given --git-dir and --work-tree explicitly: a forged git
//     dir (with a config whose filter runs a command) is never read. A
//     worktree with a tampered link is refused (ErrForgedLink), never
//     deleted as stale.
//   - Every git and verify child runs through proc: its own process group,
//     bounded output, a deadline (2 minutes per git command), and an
//     environment built from an allowlist. No GIT_* variable of the server
//     passes (GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE inherited from a hook
//     would aim our commands at another repository) and no provider key
//     reaches git or a verify command.
//   - Our commits use a fixed identity (Clawboo <clawboo@localhost>; a
//     merge or squash commit a person asked for is by the repository's
//     configured user.name and user.email when set), no
//     signing, and no hooks: core.hooksPath points at the null device and
//     commit runs with --no-verify, so a repository's hooks never run
//     automatically on the user's machine without being asked.
//   - Operations on one worktree path are serialized by a keyed mutex whose
//     entries exist only while held or awaited. Different tasks of one
//     repository run in parallel; a git lock file left by a neighbour
//     (index.lock, packed-refs.lock) is waited out with a few retries.
//   - Work is never silently discarded: Pause, Complete and GC commit first;
//     a registered worktree that is on some other branch is refused rather
//     than replaced; GC never touches a task its Keep function protects
//     (asked under the path's lock) and removes the directory of a task
//     whose repository vanished (there is nothing left to commit into).
//   - A repository's lifecycle files are read from the task's base commit,
//     never from the worktree an agent wrote: .clawboo/setup (a shell
//     script run once per new worktree before the agent starts, 10-minute
//     limit), .clawboo/teardown (run before a worktree is removed, paused
//     or reaped; its failure never keeps the folder), and .clawboo/include
//     (globs of ignored files copied from the repository's checkout: no
//     absolute or climbing globs, regular files only, through os.Root so
//     nothing resolves outside either tree, bounded in count and size).
//     Included files never enter a commit or diff of ours: after every
//     `git add -A` the files the globs match that the base lacks are
//     unstaged, whatever the worktree's .gitignore says. Setup, verify and
//     teardown get the allowlisted environment plus the task's CLAWBOO_*
//     variables (its ports, Options.TaskEnv).
//   - Operations that take a Worktree recompute its path and branch from its
//     repository and task id and refuse a value that disagrees, so a bad
//     database row cannot make us delete an arbitrary directory.
package worktree
