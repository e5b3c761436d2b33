package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

func TestErrorClassesOverTheWire(t *testing.T) {
	cases := []struct {
		name string
		resp fakeprovider.Response
		want Class
	}{
		{"401", fakeprovider.Status(401), ClassAuth},
		{"403", fakeprovider.Status(403), ClassAuth},
		{"429", fakeprovider.Status(429), ClassRateLimit},
		{"529", fakeprovider.Status(529), ClassOverloaded},
		{"500", fakeprovider.Status(500), ClassOverloaded},
		{"503", fakeprovider.Status(503), ClassOverloaded},
		{"400", fakeprovider.Status(400), ClassBadRequest},
		{"404", fakeprovider.Status(404), ClassBadRequest},
		{"422", fakeprovider.Status(422), ClassBadRequest},
		{"overflow", fakeprovider.Overflow(), ClassContextOverflow},
		{"dropped", fakeprovider.Dropped(), ClassNetwork},
		{"cut", fakeprovider.CutAfter(4, fakeprovider.Text("a", "b", "c", "d", "e")), ClassNetwork},
	}
	for _, dialect := range []string{"anthropic", "openai"} {
		for _, c := range cases {
			t.Run(dialect+"/"+c.name, func(t *testing.T) {
				r := newRig(t)
				path := chatPath
				if dialect == "anthropic" {
					path = msgPath
				}
				r.fake.Push(path, c.resp)
				_, err := run(t, r.provider(t, dialect), baseReq())
				if err == nil {
					t.Fatal("no error")
				}
				if got := Classify(err); got != c.want {
					t.Fatalf("class = %s, want %s: %v", got, c.want, err)
				}
				var le *Error
				if !errors.As(err, &le) || le.Provider != dialect {
					t.Errorf("not a classified *Error of %s: %T %v", dialect, err, err)
				}
				if IsContextOverflow(err) != (c.want == ClassContextOverflow) {
					t.Errorf("IsContextOverflow = %v", IsContextOverflow(err))
				}
				if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v", err), testKey) {
					t.Errorf("key in error: %v", err)
				}
			})
		}
	}
}

// The fake's OpenAI 401 repeats the key it was given, as OpenAI's does;
// the error we surface must not.
func TestKeyNeverInErrors(t *testing.T) {
	r := newRig(t)
	r.fake.Push(chatPath, fakeprovider.Status(401))
	_, err := run(t, r.provider(t, "openai"), baseReq())
	if err == nil || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("key leaked: %v", err)
	}
	if !strings.Contains(string(r.fake.Requests()[0].Key), testKey) {
		t.Fatal("fake did not see the key")
	}
}

func TestClassifyPlainErrors(t *testing.T) {
	cases := []struct {
		err  error
		want Class
	}{
		{nil, ""},
		{io.ErrUnexpectedEOF, ClassNetwork},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), ClassNetwork},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, ClassNetwork},
		{errors.New("fetch failed"), ClassNetwork},
		{errors.New("something odd"), ClassUnknown},
		{errors.New("prompt is too long: 3 > 2"), ClassContextOverflow},
		{&Error{Class: ClassRateLimit}, ClassRateLimit},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	for c, want := range map[Class]bool{ClassAuth: true, ClassRateLimit: true, ClassOverloaded: true, ClassNetwork: true, ClassBadRequest: false, ClassContextOverflow: false, ClassUnknown: false} {
		if c.Fallback() != want {
			t.Errorf("%s.Fallback() = %v", c, !want)
		}
	}
}
