package backend

import (
	"context"
	"errors"
	"time"

	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
)

// withOllama loads the saved Ollama address (a setting, never a secret)
// and overlays it on opts.Getenv, so the vault, the catalog, the agents'
// readiness and the native router all read OLLAMA_BASE_URL as the
// environment's value, else the saved one.
func (b *Backend) withOllama(ctx context.Context, opts Options) (Options, error) {
	saved, err := b.Store.GetSetting(ctx, runtimes.SettingOllamaURL)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return opts, err
	}
	b.ollama = runtimes.NewOllamaURL(saved, func(ctx context.Context, url string) error {
		if url == "" {
			return b.Store.DeleteSetting(ctx, runtimes.SettingOllamaURL)
		}
		return b.Store.PutSetting(ctx, runtimes.SettingOllamaURL, url, time.Now().UnixMilli())
	})
	opts.Getenv = b.ollama.Getenv(opts.Getenv)
	return opts, nil
}
