//go:build desktop && !(linux && cgo)

package app

// newPopupUI: native popups exist only for the Linux GTK build; elsewhere
// approvals are answered in the page, the tray and the API.
func newPopupUI(func(id string, c popupChoice)) popupUI { return nil }
