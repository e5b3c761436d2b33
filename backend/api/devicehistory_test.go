package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/devices"
)

// withPhonesAndHistory is the approvals fixture with paired phones: the API's
// routes and the phone's listener's handler (served here without TLS,
// answering to historyPhoneHost).
func withPhonesAndHistory(t *testing.T) (*fixture, *devices.Service, http.Handler) {
	t.Helper()
	var ds *devices.Service
	f, _ := withApprovals(t, func(o *Options) {
		ds = devices.New(o.Store, nil)
		o.Devices = ds
		o.Pairing = func(context.Context, string) (Pairing, error) { return Pairing{}, nil }
	})
	phone := f.api.PhoneHandler(PhoneOptions{Devices: ds, Hosts: func() []string { return []string{historyPhoneHost} }})
	return f, ds, phone
}

const historyPhoneHost = "192.0.2.1:8443"

// pairThroughListener redeems a fresh code as the phone named name at addr would,
// answering the device, the code and the token its cookie carries.
func pairThroughListener(t *testing.T, ds *devices.Service, phone http.Handler, name, addr string) (devices.Device, string, string) {
	t.Helper()
	code, _, err := ds.Window.Open()
	if err != nil {
		t.Fatal(err)
	}
	w := postPair(phone, `{"code":"`+code+`","name":"`+name+`"}`, addr)
	if w.Code != http.StatusOK {
		t.Fatal(w.Code, w.Body.String())
	}
	var token string
	for _, c := range w.Result().Cookies() {
		if c.Name == DeviceCookie {
			token = c.Value
		}
	}
	return decode[map[string]devices.Device](t, w.Body.Bytes())["device"], code, token
}

func postPair(phone http.Handler, body, addr string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "https://"+historyPhoneHost+"/m/api/pair", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = addr + ":50123"
	w := httptest.NewRecorder()
	phone.ServeHTTP(w, r)
	return w
}

func answeredHistory(t *testing.T, f *fixture) ([]approval.Request, string) {
	t.Helper()
	code, _, b := f.do(t, "GET", "/api/approvals?status=answered", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	return decode[map[string][]approval.Request](t, b)["approvals"], string(b)
}

// Issue 30: every pairing and removal of a phone is a line of the approvals
// history, with the device's name, who did it and from where; a refused
// pairing or removal is not; none is ever waiting or answerable, and no
// code or token is ever in it.
func TestPairingsAndRemovalsAreInTheApprovalsHistory(t *testing.T) {
	f, ds, phone := withPhonesAndHistory(t)

	pixel, code1, token1 := pairThroughListener(t, ds, phone, "Pixel 8", "192.0.2.7")
	if _, _, err := ds.Window.Open(); err != nil {
		t.Fatal(err)
	}
	if w := postPair(phone, `{"code":"not-the-code","name":"Intruder"}`, "192.0.2.66"); w.Code != http.StatusForbidden {
		t.Fatal("a wrong code:", w.Code, w.Body.String())
	}
	iphone, code2, token2 := pairThroughListener(t, ds, phone, "iPhone", "192.0.2.8")

	hist, raw := answeredHistory(t, f)
	if len(hist) != 2 {
		t.Fatalf("history after two pairings and a refused one: %s", raw)
	}
	for i, want := range []struct{ title, by, note string }{
		{"Paired a phone: iPhone", "phone: iPhone", "from 192.0.2.8"},
		{"Paired a phone: Pixel 8", "phone: Pixel 8", "from 192.0.2.7"},
	} {
		h := hist[i]
		if h.Kind != approval.KindDevice || h.Status != approval.Approved || h.Title != want.title ||
			h.ResolvedBy != want.by || h.Note != want.note || h.ResolvedAt == 0 {
			t.Fatalf("entry %d: %+v, want %+v", i, h, want)
		}
	}

	// Removed by the token's holder, then by the page (the desktop window).
	if code, _, b := f.do(t, "DELETE", "/api/devices/"+pixel.ID, ""); code != http.StatusNoContent {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "DELETE", "/api/devices/"+pixel.ID, ""); code != http.StatusNotFound {
		t.Fatal("removed twice:", code, string(b))
	}
	r := httptest.NewRequest("DELETE", "/api/devices/"+iphone.ID, nil)
	r = r.WithContext(context.WithValue(r.Context(), inProcessKey{}, true))
	w := httptest.NewRecorder()
	f.api.ServeHTTP(w, r)
	if w.Code != http.StatusNoContent {
		t.Fatal(w.Code, w.Body.String())
	}

	hist, raw = answeredHistory(t, f)
	if len(hist) != 4 {
		t.Fatalf("history after two removals and a refused one: %s", raw)
	}
	if h := hist[0]; h.Kind != approval.KindDevice || h.Title != "Removed a phone: iPhone" || h.ResolvedBy != "page" || h.Status != approval.Approved {
		t.Fatalf("removed from the page: %+v", h)
	}
	if h := hist[1]; h.Kind != approval.KindDevice || h.Title != "Removed a phone: Pixel 8" || h.ResolvedBy != "api" || h.Status != approval.Approved {
		t.Fatalf("removed through the API: %+v", h)
	}
	for _, secret := range []string{code1, code2, token1, token2} {
		if secret == "" || strings.Contains(raw, secret) {
			t.Fatalf("a code or token (%q) in the history: %s", secret, raw)
		}
	}

	// Never waiting, never answerable.
	code, _, b := f.do(t, "GET", "/api/approvals", "")
	if ps := decode[map[string][]approval.Request](t, b)["approvals"]; code != 200 || len(ps) != 0 {
		t.Fatalf("pending: %d %s", code, b)
	}
	if code, _, b := f.do(t, "POST", "/api/approvals/"+hist[0].ID+"/resolve", `{"decision":"deny"}`); code != http.StatusConflict {
		t.Fatal("an entry answered:", code, string(b))
	}
}
