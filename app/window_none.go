//go:build desktop && !(linux && cgo)

package app

// startWindow: remembering the window's place and the undo keys need GTK;
// elsewhere the window opens at the default size, centred.
func startWindow(*geometryKeeper, windowGeometry, bool, func(string)) {}
