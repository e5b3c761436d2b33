package config

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// APITokenFile is the name of the file under the home that holds the HTTP
// API's token. The token is never kept anywhere else (not the database, not
// a log, not the environment of a child).
const APITokenFile = "api-token"

// APITokenPath is <home>/api-token.
func APITokenPath(home string) string { return filepath.Join(home, APITokenFile) }

// ReadAPIToken reads the home's API token; an fs.ErrNotExist error when
// there is none yet, an error in words when the file is not a token.
func ReadAPIToken(home string) (string, error) {
	b, err := os.ReadFile(APITokenPath(home))
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("%s does not hold an API token (run `clawboo token --rotate` to make a new one)", APITokenPath(home))
	}
	return tok, nil
}

// EnsureAPIToken returns the home's API token, making one (owner-only, 0600
// whatever the umask) the first time. The home must exist.
func EnsureAPIToken(home string) (string, error) {
	tok, err := ReadAPIToken(home)
	if err == nil {
		_ = os.Chmod(APITokenPath(home), 0o600) // a copied home keeps it private
		return tok, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return writeAPIToken(home, false)
}

// RotateAPIToken replaces the home's API token with a new random one and
// returns it. A running server reads the file on change, so the old token
// (and every browser session made with it) stops working at once.
func RotateAPIToken(home string) (string, error) { return writeAPIToken(home, true) }

// writeAPIToken writes a fresh token through a private temporary file and a
// rename, so a reader sees the old token or the new, never half of one.
// Without replace, a token another process made meanwhile wins.
func writeAPIToken(home string, replace bool) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("make an API token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(raw)
	f, err := os.CreateTemp(home, ".api-token-*")
	if err != nil {
		return "", fmt.Errorf("write the API token: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.WriteString(tok + "\n")
	if err := errors.Join(werr, f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		return "", fmt.Errorf("write the API token: %w", err)
	}
	path := APITokenPath(home)
	if !replace {
		// Link fails when the file exists: two first starts agree on one token.
		if err := os.Link(tmp, path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return ReadAPIToken(home)
			}
			return "", fmt.Errorf("write the API token: %w", err)
		}
		return tok, nil
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("write the API token: %w", err)
	}
	return tok, nil
}
