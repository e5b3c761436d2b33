// Package hosts owns the other machines a team's runs may go to: each is
// an SSH destination a person added (`user@host`, `host:port` or an alias
// of their own ~/.ssh/config), reached only through the person's own
// OpenSSH client, and probed for what it is (OS, architecture, cores,
// memory) and whether it can be used.
//
// Invariants:
//   - The one way out is the system `ssh` (and `ssh-keyscan`/`ssh-keygen`
//     for host keys), started through backend/proc as argv, never a shell
//     on this side, with the person's ~/.ssh/config and keys,
//     `BatchMode=yes` (nothing ever prompts), connection sharing under the
//     Clawboo home (ControlMaster/ControlPersist), and
//     `StrictHostKeyChecking=yes`: a host whose key is unknown is never
//     reached until a person accepted its SHA-256 fingerprint
//     (`unknown-host-key`), and a host whose key changed is refused with
//     ssh's own words of the danger (`host-key-changed`); Clawboo never
//     removes or replaces a known key.
//   - A fingerprint is accepted only as shown: trusting re-reads the
//     host's key and writes it to Clawboo's own known_hosts file (never the
//     person's) only when it is the fingerprint the person saw.
//   - A destination is checked before it reaches ssh: no option (leading
//     `-`), no whitespace, quotes or shell syntax, and bounded; a remote
//     command is always Clawboo's own fixed text.
//   - Every child's environment is proc's allowlist plus the ssh agent's
//     socket (SSH_AUTH_SOCK); no provider key reaches ssh.
//   - A probe is bounded in time and output; a host that hangs, floods or
//     disappears becomes `unreachable` with the reason in words.
package hosts
