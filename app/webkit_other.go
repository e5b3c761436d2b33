//go:build desktop && !(linux && cgo)

package app

// tuneWebKit and settleMemory only have work where the webview is WebKitGTK.
func tuneWebKit()   {}
func settleMemory() {}
