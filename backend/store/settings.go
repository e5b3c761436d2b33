package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// GetSetting returns a settings value, or ErrNotFound.
func (s *Store) GetSetting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("get setting %q: %w", key, err)
	}
	return v, nil
}

// PutSetting inserts or replaces a settings value.
func (s *Store) PutSetting(ctx context.Context, key, value string, now int64) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO settings(key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, value, now)
	if err != nil {
		return fmt.Errorf("put setting %q: %w", key, err)
	}
	return nil
}

// DeleteSetting removes a settings value; deleting a missing key is not an
// error.
func (s *Store) DeleteSetting(ctx context.Context, key string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key); err != nil {
		return fmt.Errorf("delete setting %q: %w", key, err)
	}
	return nil
}
