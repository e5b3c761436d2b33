package notices

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/clawboo/desktop/backend/store"
)

// Setting is the settings key the topic URL is kept under ("" = off).
const Setting = "notices.ntfy"

// maxURL bounds a topic URL.
const maxURL = 2 << 10

// Errors a caller can act on.
var (
	// ErrInvalid: the topic URL was refused (the error says why).
	ErrInvalid = errors.New("invalid ntfy topic URL")
	// ErrOff: no topic URL is saved, so there is nowhere to send to.
	ErrOff = errors.New("no ntfy topic URL is saved: save one first")
	// ErrNotDelivered: the ntfy server was not reached or refused the
	// notice (the error says how, without the URL's path).
	ErrNotDelivered = errors.New("the notice was not delivered")
)

// Settings is where the topic URL is kept (the store's settings).
type Settings interface {
	GetSetting(ctx context.Context, key string) (string, error)
	PutSetting(ctx context.Context, key, value string, now int64) error
}

// CheckURL validates a topic URL a person typed and answers it as it is
// stored; "" (after trimming spaces) turns notices off.
func CheckURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	if len(raw) > maxURL {
		return "", fmt.Errorf("%w: it is longer than 2 KiB", ErrInvalid)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: it is not a URL (write it as https://ntfy.sh/your-secret-topic)", ErrInvalid)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%w: it must start with https:// (or http:// for a server on your own network)", ErrInvalid)
	case u.User != nil:
		return "", fmt.Errorf("%w: it must not hold a user name or password (user:pass@): settings are kept in plain text, "+
			"so a credential there would be a secret on disk; use a topic name nobody can guess instead", ErrInvalid)
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("%w: it must name a server, as https://ntfy.sh/your-secret-topic does", ErrInvalid)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#"):
		return "", fmt.Errorf("%w: it must not have a query (?…) or a fragment (#…): only the server and the topic", ErrInvalid)
	case strings.Trim(u.Path, "/") == "":
		return "", fmt.Errorf("%w: it must name a topic after the server, as https://ntfy.sh/your-secret-topic does", ErrInvalid)
	}
	return u.String(), nil
}

// URL is the saved topic URL ("" when notices are off).
func (s *Service) URL(ctx context.Context) (string, error) {
	v, err := s.opts.Settings.GetSetting(ctx, Setting)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the ntfy topic URL: %w", err)
	}
	return v, nil
}

// SetURL checks and saves the topic URL ("" turns notices off) and answers
// it as saved; the next notice goes there.
func (s *Service) SetURL(ctx context.Context, raw string) (string, error) {
	v, err := CheckURL(raw)
	if err != nil {
		return "", err
	}
	if err := s.opts.Settings.PutSetting(ctx, Setting, v, s.opts.Now().UnixMilli()); err != nil {
		return "", fmt.Errorf("save the ntfy topic URL: %w", err)
	}
	return v, nil
}

// hostOf is the part of a topic URL a log line may name.
func hostOf(topic string) string {
	if u, err := url.Parse(topic); err == nil && u.Host != "" {
		return u.Host
	}
	return "(unreadable URL)"
}
