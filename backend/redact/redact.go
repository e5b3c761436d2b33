// Package redact hides secret-looking tokens in text that is about to be
// stored or shown: command output, audit summaries, memory facts. It is a
// leaf every package may use.
//
// Invariants:
//   - Secrets replaces a match with [REDACTED] and keeps the name of a
//     NAME=value pair, so the text stays readable.
//   - It errs on the side of hiding: a harmless string that looks like a
//     key is hidden rather than a key stored.
//   - Values hides known values (a task's vault secrets) whole, longest
//     first, as [secret NAME]; HideJSON always returns valid JSON.
package redact

import "regexp"

// secretPatterns match tokens that look like credentials in command output:
// provider and forge key formats, bearer tokens, JWTs, passwords in URLs.
// Better to hide a harmless string than to store a key with a task.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`sk-[A-Za-z0-9_-]{16,}`),                                      // OpenAI, Anthropic
	regexp.MustCompile(`(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`),  // GitHub
	regexp.MustCompile(`glpat-[A-Za-z0-9_-]{16,}`),                                   // GitLab
	regexp.MustCompile(`(AKIA|ASIA)[0-9A-Z]{16}`),                                    // AWS access key id
	regexp.MustCompile(`AIza[0-9A-Za-z_-]{30,}`),                                     // Google
	regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}`),                              // Slack
	regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), // JWT
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
}

var (
	// NAME=value where the name says it is a secret; the name stays.
	namedSecret = regexp.MustCompile(`(?i)\b([A-Z0-9_.-]*(?:api[_-]?key|token|secret|password|passwd|credential)[A-Z0-9_.-]*["']?\s*[:=]\s*["']?)[^\s"',;]{4,}`)
	bearer      = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}`)
	urlUserinfo = regexp.MustCompile(`(://[^/\s:@]+):[^/\s@]+@`)
)

// Secrets hides secret-looking tokens.
func Secrets(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "[REDACTED]")
	}
	s = namedSecret.ReplaceAllString(s, "${1}[REDACTED]")
	s = bearer.ReplaceAllString(s, "${1} [REDACTED]")
	return urlUserinfo.ReplaceAllString(s, "${1}:[REDACTED]@")
}
