// Package stdiobridge lets an MCP client that can only start MCP servers as
// stdio child processes reach one of Clawboo's MCP servers, which are served
// over MCP's Streamable HTTP transport behind a bearer token. `clawboo mcp
// bridge <url>` runs Run on its own stdin and stdout, with the token from
// the environment, so the token is never on a command line.
//
// The HTTP side is mcp-go's own client transport, which keeps the
// Mcp-Session-Id; this package only moves JSON-RPC messages between lines
// and that transport.
//
// Invariants:
//   - Every stdin line is bounded: one longer than MaxLine is answered with
//     a JSON-RPC parse error and skipped to its end, never held whole.
//   - A malformed line (not one JSON object) is answered with a JSON-RPC
//     parse error (-32700, id null) and never ends the bridge; nor does a
//     request the endpoint fails, which is answered with an error response
//     (-32603) carrying the request's id.
//   - The token travels only in the Authorization header, and only to the
//     endpoint's own scheme and host (a redirect elsewhere does not get it).
//     It is never logged (the transport's logger is discarded) and never
//     written to stdout: error messages are scrubbed of it, and so is every
//     line written, as a last guard.
//   - Writes to stdout are serialised: each message is one line ending in
//     "\n".
//   - At most 16 requests wait on the endpoint at once, each in its own
//     goroutine, so a slow request does not stop the reading of the next
//     lines; notifications go out in order, between the reads.
//   - The bridge ends when stdin ends (after answering the requests in
//     flight; Run returns nil) or when ctx ends (requests in flight are
//     abandoned; Run returns ctx.Err()). Either way Run closes the transport
//     and the HTTP connections and waits for its request goroutines, so no
//     goroutine of its own outlives it, with one exception a reader cannot
//     avoid: when ctx ends while a read of in is blocked, the goroutine
//     reading in ends when that read returns (the caller closes in), and
//     touches nothing else.
package stdiobridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	neturl "net/url"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"
)

// MaxLine is the longest stdin line (one JSON-RPC message) taken: 8 MiB.
const MaxLine = 8 << 20

// maxInFlight bounds the requests waiting on the endpoint at once.
const maxInFlight = 16

// Run bridges MCP's stdio transport (newline-delimited JSON-RPC messages on
// in/out) to the streamable-HTTP MCP endpoint url, sending
// "Authorization: Bearer <token>" with every request. It returns nil when in
// reaches EOF, ctx.Err() when ctx ends, and an error in words when the
// endpoint cannot be used at all (e.g. url not http/https).
//
// It also returns an error when reading in fails or writing out fails (the
// client is gone). Writes to out are not interruptible: a client that stops
// reading its stdin holds the bridge until it reads again.
func Run(ctx context.Context, in io.Reader, out io.Writer, url, token string) error {
	endpoint, err := checkEndpoint(url, token)
	if err != nil {
		return errors.New(scrub(err.Error(), token))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	conns := newConns()
	defer conns.CloseIdleConnections()
	tr, err := transport.NewStreamableHTTP(endpoint.String(),
		transport.WithHTTPBasicClient(&http.Client{Transport: &bearer{
			base:   conns,
			origin: origin(endpoint),
			value:  "Bearer " + token,
		}}),
		transport.WithHTTPLogger(slog.New(slog.DiscardHandler)),
	)
	if err != nil {
		return fmt.Errorf("stdiobridge: %s", scrub(err.Error(), token))
	}
	defer func() { _ = tr.Close() }() // the session's DELETE; runs before CloseIdleConnections

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	b := &bridge{tr: tr, token: token, out: out, stop: cancel, sem: make(chan struct{}, maxInFlight)}
	tr.SetNotificationHandler(b.forwardNotification)
	if err := tr.Start(runCtx); err != nil {
		return fmt.Errorf("stdiobridge: starting the transport: %s", scrub(err.Error(), token))
	}

	lines := make(chan line)
	done := make(chan struct{})
	go readLines(in, MaxLine, lines, done)
	readErr := b.serve(runCtx, lines)
	close(done)
	b.wg.Wait() // on EOF the requests in flight are still answered
	cancel()
	tr.SetNotificationHandler(nil) // waits out a notification being written

	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case b.writeErr() != nil:
		return b.writeErr()
	}
	return readErr
}

// checkEndpoint refuses what cannot work at all: a URL that is not an
// absolute http or https URL, and a token that cannot be a bearer token.
// Its errors never quote the token.
func checkEndpoint(raw, token string) (*neturl.URL, error) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("stdiobridge: the endpoint %q is not a URL: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("stdiobridge: the endpoint %q is not an http or https URL", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("stdiobridge: the endpoint %q names no host", raw)
	}
	if token == "" {
		return nil, errors.New("stdiobridge: no token: the endpoint needs a bearer token")
	}
	for i := range len(token) {
		if c := token[i]; c <= ' ' || c >= 0x7f {
			return nil, errors.New("stdiobridge: the token holds a space, control or non-ASCII character, which a bearer token cannot")
		}
	}
	return u, nil
}

// newConns is the bridge's own connection pool (closed when Run returns),
// configured as net/http's default one.
func newConns() *http.Transport {
	if def, ok := http.DefaultTransport.(*http.Transport); ok {
		return def.Clone()
	}
	return &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
}

// bearer adds the Authorization header to every request for the endpoint's
// origin, including the session's closing DELETE, which mcp-go sends
// without its configured headers. A request elsewhere (a redirect to
// another host) goes out without it.
type bearer struct {
	base   http.RoundTripper
	origin string
	value  string
}

// RoundTrip implements http.RoundTripper.
func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin(req.URL) != b.origin {
		return b.base.RoundTrip(req)
	}
	req = req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	req.Header.Set("Authorization", b.value)
	return b.base.RoundTrip(req)
}

// origin is a URL's scheme and host, the scope of the token.
func origin(u *neturl.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// scrub replaces the token in s.
func scrub(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "[redacted]")
}

// Serve runs the bridge as a program does (`clawboo mcp bridge URL`):
// until stdin ends, or SIGINT or SIGTERM; a failure is said on stderr in
// words. It returns the exit status.
func Serve(stdin io.Reader, stdout, stderr io.Writer, url, token string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, stdin, stdout, url, token); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "clawboo mcp bridge:", err)
		return 1
	}
	return 0
}
