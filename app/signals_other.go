//go:build desktop && !(linux && cgo)

package app

// fixSignals is only needed where WebKitGTK installs signal handlers.
func fixSignals() {}
