package openclaw

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Identity is this machine's Gateway device: an Ed25519 key pair kept in
// a file so the Gateway's pairing record (and any device token it issued)
// stays valid across restarts. The private key never leaves the file.
type Identity struct {
	priv ed25519.PrivateKey
	// ID is hex(sha256(raw 32-byte public key)), the Gateway's device id.
	ID string
}

type identityFile struct {
	Version int    `json:"version"`
	Seed    string `json:"ed25519Seed"` // base64url, 32 bytes
}

// identityFileName is the device file inside the identity folder
// (<home>/runtimes/openclaw/).
const identityFileName = "device.json"

// LoadIdentity reads the device key from dir, creating it (0600, in a
// 0700 folder) on first use.
func LoadIdentity(dir string) (*Identity, error) {
	path := filepath.Join(dir, identityFileName)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		var f identityFile
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("openclaw: device identity %s is corrupt: %w", path, err)
		}
		seed, err := base64.RawURLEncoding.DecodeString(f.Seed)
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("openclaw: device identity %s holds no valid key", path)
		}
		return newIdentity(ed25519.NewKeyFromSeed(seed)), nil
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, fmt.Errorf("openclaw: read device identity: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("openclaw: device identity folder: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	out, _ := json.Marshal(identityFile{Version: 1, Seed: base64.RawURLEncoding.EncodeToString(priv.Seed())})
	tmp, err := os.CreateTemp(dir, ".device-*")
	if err != nil {
		return nil, fmt.Errorf("openclaw: write device identity: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := writeIdentityFile(tmp, out); err != nil {
		return nil, fmt.Errorf("openclaw: write device identity: %w", err)
	}
	// Link, not rename: a second process racing us keeps the identity that
	// was written first.
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return LoadIdentity(dir)
	} else if err != nil {
		return nil, fmt.Errorf("openclaw: write device identity: %w", err)
	}
	return newIdentity(priv), nil
}

func newIdentity(priv ed25519.PrivateKey) *Identity {
	sum := sha256.Sum256(priv.Public().(ed25519.PublicKey))
	return &Identity{priv: priv, ID: hex.EncodeToString(sum[:])}
}

// PublicKey is the raw 32-byte public key, base64url without padding.
func (id *Identity) PublicKey() string {
	return base64.RawURLEncoding.EncodeToString(id.priv.Public().(ed25519.PublicKey))
}

// SignV3 signs the v3 device payload and returns it base64url.
func (id *Identity) SignV3(p SignFields) string {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(id.priv, []byte(p.payload(id.ID))))
}

// SignFields are the parts of a v3 device signature besides the device id.
type SignFields struct {
	ClientID, ClientMode, Role string
	Scopes                     []string
	SignedAtMs                 int64
	Token, Nonce               string
	Platform, DeviceFamily     string
}

// payload is runtimes-protocols.md §4.3:
// v3|deviceId|client.id|client.mode|role|scopes,…|signedAtMs|token|nonce|platform|deviceFamily
// with platform and device family lowercased.
func (p SignFields) payload(deviceID string) string {
	return strings.Join([]string{
		"v3", deviceID, p.ClientID, p.ClientMode, p.Role, strings.Join(p.Scopes, ","),
		strconv.FormatInt(p.SignedAtMs, 10), p.Token, p.Nonce, strings.ToLower(p.Platform), strings.ToLower(p.DeviceFamily),
	}, "|")
}

// VerifyV3 checks a v3 signature against a raw base64url public key (for
// the Gateway double in tests, and as the definition of the format).
func VerifyV3(publicKey, signature string, p SignFields) bool {
	pub, err := base64.RawURLEncoding.DecodeString(publicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(pub)
	return ed25519.Verify(pub, []byte(p.payload(hex.EncodeToString(sum[:]))), sig)
}

// writeIdentityFile makes tmp private, writes out and closes it; any step's
// failure is the answer (an identity on disk half-written or readable by
// others is not one to link into place).
func writeIdentityFile(tmp *os.File, out []byte) error {
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	return tmp.Close()
}
