package llm

import (
	"testing"

	"go.uber.org/goleak"
)

// Streams own connections and the SDKs' decoders; every test must leave
// none running. Idle keep-alive connections of the shared transport are
// not leaks.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
	)
}
