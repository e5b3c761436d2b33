package backend

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/devices"
)

// The LAN listener for paired phones (issue 30): off until a person pairs
// one, on one address of this computer with TLS (the certificate made once
// under the home), and off again when the last device is removed or
// Clawboo closes. Its handler is the API's phone handler, which answers
// only the paired page's routes.

// phonePort is the port the listener tries first, so a phone's saved page
// keeps its address; another is taken when it is busy.
const phonePort = 18795

// phoneLAN is the listener while it is on.
type phoneLAN struct {
	mu   sync.Mutex
	srv  *http.Server
	addr string // host:port, as the pairing link names it
}

// openDevices makes the paired devices' service.
func (b *Backend) openDevices() {
	b.Devices = devices.New(b.Store, nil)
	b.phone = &phoneLAN{}
}

// pairing is the API's Pairing: none on a host's server, which only a
// desktop reaches.
func (b *Backend) pairing(opts Options) func(context.Context, string) (api.Pairing, error) {
	if opts.HostServer {
		return nil
	}
	return b.startPairing
}

// startPairing turns the listener on (on address, else this computer's
// LAN address; at the port paired phones know when it was on there
// before) and opens a pairing window: the link and the certificate's
// fingerprint a person checks on the phone.
func (b *Backend) startPairing(ctx context.Context, address string) (api.Pairing, error) {
	ip, err := pairingIP(address)
	if err != nil {
		return api.Pairing{}, err
	}
	cert, err := devices.LoadOrMakeCert(filepath.Join(b.Config.Home, "devices"), lanIPs(ip))
	if err != nil {
		return api.Pairing{}, err
	}
	port := phonePort
	if saved, err := b.Store.GetSetting(ctx, phoneSetting); err == nil {
		if host, p, err := net.SplitHostPort(saved); err == nil && host == ip.String() {
			port, _ = strconv.Atoi(p) // the address a paired phone already knows
		}
	}
	addr, err := b.phone.listen(ip, port, cert, b.phoneHandler(), b.log)
	if err != nil {
		return api.Pairing{}, err
	}
	if err := b.Store.PutSetting(ctx, phoneSetting, addr, time.Now().UnixMilli()); err != nil {
		b.log.Warn("the phones' address not kept: it is on until Clawboo closes", "err", err)
	}
	code, expires, err := b.Devices.Window.Open()
	if err != nil {
		return api.Pairing{}, err
	}
	link := "https://" + addr + "/pair#" + code
	qr, err := devices.QR(link)
	if err != nil {
		return api.Pairing{}, err
	}
	return api.Pairing{URL: link, QR: qr, Fingerprint: cert.Fingerprint, ExpiresAt: expires.UnixMilli()}, nil
}

// devicesChanged turns the listener off when no device is left.
func (b *Backend) devicesChanged(ctx context.Context) {
	if n, err := b.Devices.Count(ctx); err == nil && n == 0 {
		b.Devices.Window.Close()
		b.phone.closeWithin(2 * time.Second)
		_ = b.Store.DeleteSetting(ctx, phoneSetting)
	}
}

// phoneSetting keeps the listener's address while phones are paired, so it
// comes back there when Clawboo starts again.
const phoneSetting = "phones.address"

// phoneHandler is the API's handler for the phones' listener.
func (b *Backend) phoneHandler() http.Handler {
	return b.API.PhoneHandler(api.PhoneOptions{Devices: b.Devices, Hosts: b.phone.hosts})
}

// resumePhones turns the listener back on, at the address paired phones
// know, when Clawboo starts with phones paired; a pairing window is not
// opened. An address this computer no longer has is said in the log.
func (b *Backend) resumePhones(ctx context.Context) {
	saved, err := b.Store.GetSetting(ctx, phoneSetting)
	if err != nil {
		return
	}
	if n, err := b.Devices.Count(ctx); err != nil || n == 0 {
		return
	}
	host, p, err := net.SplitHostPort(saved)
	ip, port := net.ParseIP(host), 0
	if err == nil {
		port, err = strconv.Atoi(p)
	}
	if err != nil || ip == nil || (!ip.IsLoopback() && !ownIP(ip)) {
		b.log.Warn("the phones' listener stays off: this computer no longer has its address; pair a phone again", "address", saved)
		return
	}
	cert, err := devices.LoadOrMakeCert(filepath.Join(b.Config.Home, "devices"), lanIPs(ip))
	if err == nil {
		_, err = b.phone.listen(ip, port, cert, b.phoneHandler(), b.log)
	}
	if err != nil {
		b.log.Warn("the phones' listener did not come back", "address", saved, "err", err)
	}
}

// hosts are the Host values the listener answers to.
func (p *phoneLAN) hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.addr == "" {
		return nil
	}
	return []string{p.addr}
}

// listen starts the listener on ip unless it is on there already, and
// answers its address.
func (p *phoneLAN) listen(ip net.IP, port int, cert devices.Cert, h http.Handler, log *slog.Logger) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		if host, _, _ := net.SplitHostPort(p.addr); host == ip.String() {
			return p.addr, nil
		}
		_ = p.srv.Close() // another address was asked for
		p.srv, p.addr = nil, ""
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert.TLS}, MinVersion: tls.VersionTLS12}
	ln, err := tls.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)), cfg)
	if err != nil {
		if ln, err = tls.Listen("tcp", net.JoinHostPort(ip.String(), "0"), cfg); err != nil {
			return "", fmt.Errorf("the phones' listener could not start on %s: %w", ip, err)
		}
	}
	srv := &http.Server{
		Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 16 << 10,
		// A stranger's handshake is their problem, not a line at warn.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("the phones' listener stopped", "err", err)
		}
	}()
	p.srv, p.addr = srv, ln.Addr().String()
	return p.addr, nil
}

// close turns the listener off; its streams end with it.
func (p *phoneLAN) close() { p.closeWithin(0) }

// closeWithin stops the listener at once and gives open requests up to
// grace to end by themselves (a removed phone's stream says "revoked"
// first) before cutting them.
func (p *phoneLAN) closeWithin(grace time.Duration) {
	p.mu.Lock()
	srv := p.srv
	p.srv, p.addr = nil, ""
	p.mu.Unlock()
	if srv == nil {
		return
	}
	if grace > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if srv.Shutdown(ctx) == nil {
			return
		}
	}
	_ = srv.Close()
}

// pairingIP is the address to listen on: the one asked for (an IP of this
// computer), else the first LAN address of an interface that is up.
func pairingIP(address string) (net.IP, error) {
	if address != "" {
		ip := net.ParseIP(address)
		if ip == nil {
			return nil, fmt.Errorf("address %q is not an IP address", address)
		}
		if !ip.IsLoopback() && !ownIP(ip) {
			return nil, fmt.Errorf("address %s is not one of this computer's", ip)
		}
		return ip, nil
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP, nil
		}
	}
	return nil, errors.New("this computer has no network address a phone could reach: connect it to a network (or name an address)")
}

// ownIP says ip is an address of one of this computer's interfaces.
func ownIP(ip net.IP) bool {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// lanIPs are the addresses the certificate names: ip and this computer's
// interfaces' when it is first made.
func lanIPs(ip net.IP) []net.IP {
	out := []net.IP{ip}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.Equal(ip) && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP)
		}
	}
	return out
}
