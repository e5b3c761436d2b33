package toolbroker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// web_fetch and web_search reach the internet, so they are medium risk and
// bounded: GET only, http and https only, 15 s, 1 MiB, five redirects, and
// never an address on this machine or its private networks — checked on
// the address actually dialled (after DNS, for every redirect), so a name
// that resolves to 127.0.0.1 or a rebinding DNS answer is refused too.

const (
	fetchTimeout  = 15 * time.Second
	fetchMaxBody  = 1 << 20
	fetchRedirect = 5

	tavilyEndpoint = "https://api.tavily.com/search"
	tavilyKey      = "TAVILY_API_KEY"
)

var errPrivateAddress = errors.New("refused: the address is on this machine or a private network")

// fetcher is an HTTP client that dials only public addresses.
type fetcher struct {
	client *http.Client
	// allow decides which dialled addresses are acceptable (tests widen it
	// to reach an httptest server on loopback).
	allow func(netip.Addr) bool
}

func newFetcher() *fetcher {
	f := &fetcher{allow: publicAddr}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || !f.allow(ip) {
			return errPrivateAddress
		}
		return nil
	}}
	tr := &http.Transport{
		// No proxy: a proxy would dial on our behalf, past the check.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  fetchTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           4,
		IdleConnTimeout:        30 * time.Second,
	}
	f.client = &http.Client{Transport: tr, Timeout: fetchTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= fetchRedirect {
			return fmt.Errorf("stopped after %d redirects", fetchRedirect)
		}
		return checkURL(req.URL, f.allow)
	}}
	return f
}

// publicAddr refuses loopback, private, link-local, multicast, unspecified
// and reserved addresses, looking through IPv4-mapped and NAT64 forms.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

var (
	nat64    = netip.MustParsePrefix("64:ff9b::/96")
	reserved = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
		netip.MustParsePrefix("192.0.0.0/24"),
		netip.MustParsePrefix("198.18.0.0/15"),
		netip.MustParsePrefix("240.0.0.0/4"),
		netip.MustParsePrefix("2001:db8::/32"),
	}
)

// checkURL refuses what web_fetch never fetches, before any dialling.
func checkURL(u *url.URL, allow func(netip.Addr) bool) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("only http and https URLs are fetched")
	}
	if u.User != nil {
		return errors.New("credentials in the URL are refused")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("the URL has no host")
	}
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(lower); err == nil && !allow(ip) {
		return errPrivateAddress
	}
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		if !allow(netip.MustParseAddr("127.0.0.1")) {
			return errPrivateAddress
		}
	}
	return nil
}

type fetchToolArgs struct {
	URL string `json:"url"`
}

func (b *Broker) webFetchTool() *brokerTool {
	return builtinSpec[fetchToolArgs]{
		name: "web_fetch", risk: RiskMedium,
		desc: "Fetch a public web page or file with GET (http/https only; 15 s; the first 1 MiB). " +
			"Addresses on this machine or private networks are refused.",
		schema: `{"type":"object","properties":{"url":{"type":"string","description":"An http or https URL."}},"required":["url"],"additionalProperties":false}`,
		check: func(a *fetchToolArgs) error {
			if a.URL == "" {
				return errors.New("url is required")
			}
			u, err := url.Parse(a.URL)
			if err != nil {
				return fmt.Errorf("url: %w", err)
			}
			return checkURL(u, b.fetch.allow)
		},
		run: func(ctx context.Context, _ toolcall.Caller, a fetchToolArgs) (any, error) {
			return b.fetch.get(ctx, a.URL)
		},
	}.tool()
}

type fetchResult struct {
	URL         string `json:"url"`
	Status      int    `json:"status"`
	ContentType string `json:"contentType,omitempty"`
	Body        string `json:"body"`
	Bytes       int    `json:"bytes"`
	Truncated   bool   `json:"truncated,omitempty"`
}

func (f *fetcher) get(ctx context.Context, rawURL string) (*fetchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "clawboo-tools/1 (+web_fetch)")
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, errPrivateAddress) {
			return nil, errPrivateAddress
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read the response: %w", err)
	}
	out := &fetchResult{URL: resp.Request.URL.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if len(body) > fetchMaxBody {
		body, out.Truncated = body[:fetchMaxBody], true
	}
	out.Bytes = len(body)
	if textualType(out.ContentType) {
		out.Body = string(body)
	} else {
		out.Body = fmt.Sprintf("(%d bytes of %s not shown: not text)", len(body), out.ContentType)
	}
	return out, nil
}

// textualType reports content types worth returning as text.
func textualType(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") ||
		mt == "application/javascript" || mt == "application/x-www-form-urlencoded"
}

type webSearchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

func (b *Broker) webSearchTool() *brokerTool {
	return builtinSpec[webSearchArgs]{
		name: "web_search", risk: RiskMedium,
		desc:   "Search the web (Tavily) and get titles, URLs and snippets.",
		schema: `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":20,"description":"How many results (default 5)."}},"required":["query"],"additionalProperties":false}`,
		available: func(context.Context) (bool, string) {
			if !b.secretSource().Has(tavilyKey) {
				return false, tavilyKey + " is not configured"
			}
			return true, ""
		},
		check: func(a *webSearchArgs) error {
			a.Query = strings.TrimSpace(a.Query)
			switch {
			case a.Query == "":
				return errors.New("query is required")
			case len(a.Query) > maxSearchQuery:
				return fmt.Errorf("query is over %d bytes", maxSearchQuery)
			case a.Limit == 0:
				a.Limit = 5
			case a.Limit < 1 || a.Limit > 20:
				return errors.New("limit must be between 1 and 20")
			}
			return nil
		},
		run: b.search,
	}.tool()
}

type webSearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

func (b *Broker) search(ctx context.Context, _ toolcall.Caller, a webSearchArgs) (any, error) {
	key, ok := b.secretSource().Get(ctx, tavilyKey)
	if !ok {
		return nil, errors.New(tavilyKey + " is not configured")
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": a.Query, "max_results": a.Limit, "search_depth": "basic"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.tavilyURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := b.fetch.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBody))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("search: Tavily answered %s", resp.Status)
	}
	var out struct {
		Results []webSearchResult `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("search: unreadable answer: %w", err)
	}
	if out.Results == nil {
		out.Results = []webSearchResult{}
	}
	return map[string]any{"query": a.Query, "results": out.Results}, nil
}
