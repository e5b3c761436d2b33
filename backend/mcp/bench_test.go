package mcp

import (
	"context"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The tools/call round trip, through everything a runtime's call goes
// through here: over HTTP the token check, the binding's signature and
// mcp-go's Streamable HTTP transport on a real loopback socket; in process
// the session's binding and mcp-go's in-process transport. The tool itself
// (whoami) does nothing, so this is the MCP layer's own cost; each is timed
// beside its floor, bare mcp-go, in the same loop (benchAgainstFloor).

// reportPercentiles reports lat's p50 and p99 and returns the p50.
func reportPercentiles(b *testing.B, lat []time.Duration) float64 {
	p50 := percentile(lat, 0.50)
	b.ReportMetric(p50, "p50-µs")
	b.ReportMetric(percentile(lat, 0.99), "p99-µs")
	return p50
}

// percentile is lat's q-quantile in µs (lat is sorted in place).
func percentile(lat []time.Duration, q float64) float64 {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3
}

func BenchmarkToolCallHTTP(b *testing.B) {
	h := newTestHub(b, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := benchHTTPClient(b, srv.URL+"/mcp/tasks?"+h.Signer().Query(Binding{TeamID: "t", AgentID: "a"}),
		map[string]string{"Authorization": "Bearer " + testToken})
	bare := bareServer()
	hs := server.NewStreamableHTTPServer(bare)
	bareSrv := httptest.NewServer(hs)
	defer bareSrv.Close()
	defer hs.Shutdown(context.Background())
	floor := benchHTTPClient(b, bareSrv.URL+"/mcp", nil)
	benchAgainstFloor(b, func() error {
		_, err := call(c, "whoami", nil)
		return err
	}, func() error {
		_, err := call(floor, "noop", nil)
		return err
	})
}

func BenchmarkToolCallInProcess(b *testing.B) {
	h := newTestHub(b, Options{})
	s, err := h.Session(context.Background(), Tasks, Binding{TeamID: "t", AgentID: "a"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	floor, err := client.NewInProcessClient(bareServer())
	if err != nil {
		b.Fatal(err)
	}
	defer floor.Close()
	if err := initClient(ctx, floor); err != nil {
		b.Fatal(err)
	}
	benchAgainstFloor(b, func() error {
		_, err := s.CallTool(ctx, "whoami", nil)
		return err
	}, func() error {
		_, err := call(floor, "noop", nil)
		return err
	})
}

// benchAgainstFloor times fn and floor (bare mcp-go doing the same call)
// alternately in one loop, so both see the same machine load, and reports
// both p50s and their ratio (the bound: ratio ≤ 1.2). ns/op covers
// the pair.
func benchAgainstFloor(b *testing.B, fn, floor func() error) {
	for i := 0; i < 50; i++ { // warm up
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		if err := floor(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	flat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	timed := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for i := 0; i < b.N; i++ {
		if i%2 == 0 { // alternate which goes first
			lat = append(lat, timed(fn))
			flat = append(flat, timed(floor))
		} else {
			flat = append(flat, timed(floor))
			lat = append(lat, timed(fn))
		}
	}
	b.StopTimer()
	p50, floor50 := reportPercentiles(b, lat), percentile(flat, 0.50)
	b.ReportMetric(floor50, "floor-p50-µs")
	if floor50 > 0 {
		b.ReportMetric(p50/floor50, "x-floor")
	}
}

func benchCalls(b *testing.B, fn func() error) {
	for i := 0; i < 50; i++ { // warm up
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

func initClient(ctx context.Context, c *client.Client) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	_, err := c.Initialize(ctx, init)
	return err
}

// BenchmarkBareMCPGoInProcess is the floor: a plain mcp-go server and
// in-process client with one do-nothing tool, none of Clawboo's layers, on
// the same machine at the same moment.
func BenchmarkBareMCPGoInProcess(b *testing.B) {
	s := bareServer()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := initClient(ctx, c); err != nil {
		b.Fatal(err)
	}
	benchCalls(b, func() error {
		_, err := call(c, "noop", nil)
		return err
	})
}

// BenchmarkBareMCPGoHTTP is the HTTP floor: plain mcp-go over a loopback
// socket with no token, binding or Clawboo handler in front.
func BenchmarkBareMCPGoHTTP(b *testing.B) {
	s := bareServer()
	hs := server.NewStreamableHTTPServer(s)
	srv := httptest.NewServer(hs)
	defer srv.Close()
	defer hs.Shutdown(context.Background())
	c := benchHTTPClient(b, srv.URL+"/mcp", nil)
	benchCalls(b, func() error {
		_, err := call(c, "noop", nil)
		return err
	})
}

// bareServer is a plain mcp-go server with one do-nothing tool, "noop".
func bareServer() *server.MCPServer {
	s := server.NewMCPServer("bare", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("{}"), nil
	})
	return s
}

// benchHTTPClient is an initialized Streamable HTTP client, closed with b.
func benchHTTPClient(b *testing.B, url string, headers map[string]string) *client.Client {
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	if err := initClient(context.Background(), c); err != nil {
		b.Fatal(err)
	}
	return c
}
