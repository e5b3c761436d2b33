//go:build desktop && linux && cgo

package app

/*
#cgo linux pkg-config: gtk+-3.0
#include <stdlib.h>
#include "popup_gtk.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

// gtkPopups shows approval popups as native GTK dialogs (popup_gtk.c). The
// C side knows requests by a small number; this side maps them to approval
// ids and hands answers to the attention loop.
type gtkPopups struct {
	mu     sync.Mutex
	next   uint32
	byNum  map[uint32]string
	byID   map[string]uint32
	answer func(id string, c popupChoice)
}

// gtkOwner is the one GTK popup owner of this process: the C callback has no
// other way back to Go.
var gtkOwner = &gtkPopups{byNum: map[uint32]string{}, byID: map[string]uint32{}}

// newPopupUI returns the native popups, answering through answer.
func newPopupUI(answer func(id string, c popupChoice)) popupUI {
	gtkOwner.mu.Lock()
	gtkOwner.answer = answer
	gtkOwner.mu.Unlock()
	return gtkOwner
}

func (g *gtkPopups) Show(p approvalPopup) {
	g.mu.Lock()
	g.next++
	n := g.next
	g.byNum[n], g.byID[p.ID] = p.ID, n
	g.mu.Unlock()
	title, heading, body := cstr(p.Title), cstr(p.Heading), cstr(p.Body())
	defer C.free(unsafe.Pointer(title))
	defer C.free(unsafe.Pointer(heading))
	defer C.free(unsafe.Pointer(body))
	always := C.gboolean(0)
	if p.Always {
		always = 1
	}
	C.clawboo_popup_show(C.guint(n), title, heading, body, always)
}

func (g *gtkPopups) Withdraw(id string) {
	g.mu.Lock()
	n, ok := g.byID[id]
	delete(g.byID, id)
	delete(g.byNum, n)
	g.mu.Unlock()
	if ok {
		C.clawboo_popup_withdraw(C.guint(n))
	}
}

// cstr is s as a C string, with NUL bytes (which C would cut at) removed.
func cstr(s string) *C.char {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != 0 {
			b = append(b, s[i])
		}
	}
	return C.CString(string(b))
}

// GTK response ids (gtk/gtkdialog.h).
const (
	gtkResponseReject = -2
	gtkResponseAccept = -3
)

//export clawbooPopupAnswered
func clawbooPopupAnswered(num C.guint, response C.gint) {
	g := gtkOwner
	g.mu.Lock()
	id, ok := g.byNum[uint32(num)]
	delete(g.byNum, uint32(num))
	delete(g.byID, id)
	answer := g.answer
	g.mu.Unlock()
	if !ok || answer == nil {
		return
	}
	c := choiceDismissed
	switch int(response) {
	case gtkResponseAccept:
		c = choiceAllow
	case gtkResponseReject:
		c = choiceDeny
	case C.CLAWBOO_RESPONSE_ALWAYS:
		c = choiceAllowAlways
	}
	answer(id, c) // non-blocking: the attention loop takes it from here
}
