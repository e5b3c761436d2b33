package api

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkHTTPMockRun is one waited mock run through the whole handler,
// over a real loopback connection.
func BenchmarkHTTPMockRun(b *testing.B) {
	f := newFixtureB(b)
	c := &http.Client{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := c.Post(f.srv.URL+"/api/runtimes/clawboo-mock/run", "application/json", strings.NewReader(`{"message":"!ok done"}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
