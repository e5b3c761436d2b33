package devices

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// certLife is how long the LAN certificate is valid (it is self-signed:
// what a person checks is its fingerprint, not a chain).
const certLife = 10 * 365 * 24 * time.Hour

// Cert is the LAN listener's certificate and its SHA-256 fingerprint
// (hex, colon-separated, as browsers show it).
type Cert struct {
	TLS         tls.Certificate
	Fingerprint string
}

// LoadOrMakeCert reads the certificate kept in dir (lan.crt, lan.key),
// making it the first time: ECDSA P-256, self-signed, naming this
// computer's addresses (ips) and localhost. The key is written 0600 in a
// 0700 folder, and a key file anyone else can read is refused.
func LoadOrMakeCert(dir string, ips []net.IP) (Cert, error) {
	crt, key := filepath.Join(dir, "lan.crt"), filepath.Join(dir, "lan.key")
	if fi, err := os.Stat(key); err == nil {
		if fi.Mode().Perm()&0o077 != 0 {
			return Cert{}, fmt.Errorf("devices: %s is readable by others (mode %o): remove it and pair again", key, fi.Mode().Perm())
		}
		return loadCert(crt, key)
	} else if !errors.Is(err, os.ErrNotExist) {
		return Cert{}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Cert{}, err
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Cert{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return Cert{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "Clawboo on this computer"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		return Cert{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		return Cert{}, err
	}
	if err := writePrivate(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})); err != nil {
		return Cert{}, err
	}
	if err := writePrivate(crt, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})); err != nil {
		return Cert{}, err
	}
	return loadCert(crt, key)
}

func loadCert(crt, key string) (Cert, error) {
	c, err := tls.LoadX509KeyPair(crt, key)
	if err != nil {
		return Cert{}, fmt.Errorf("devices: the LAN certificate: %w", err)
	}
	return Cert{TLS: c, Fingerprint: Fingerprint(c.Certificate[0])}, nil
}

// Fingerprint is a certificate's SHA-256 as browsers show it.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	parts := make([]string, 0, len(sum))
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}

// writePrivate writes b to p at mode 0600, through a temporary file.
func writePrivate(p string, b []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
