//go:build desktop

package app

import (
	"log/slog"
	"os"
)

// wailsLogger sends Wails' own log lines to the app's slog logger, so the
// desktop has one log format.
type wailsLogger struct{ log *slog.Logger }

func (l wailsLogger) Print(m string)   { l.log.Info(m) }
func (l wailsLogger) Trace(m string)   { l.log.Debug(m) }
func (l wailsLogger) Debug(m string)   { l.log.Debug(m) }
func (l wailsLogger) Info(m string)    { l.log.Info(m) }
func (l wailsLogger) Warning(m string) { l.log.Warn(m) }
func (l wailsLogger) Error(m string)   { l.log.Error(m) }

// Fatal keeps Wails' contract: its default logger exits after a fatal line.
func (l wailsLogger) Fatal(m string) { l.log.Error(m); os.Exit(1) }
