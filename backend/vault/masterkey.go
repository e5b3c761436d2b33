package vault

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

const masterKeyFile = "master.key"

// errBadEnvKey never includes the value: the variable holds a secret.
var errBadEnvKey = errors.New(EnvMasterKey + " must be a 32-byte key — supply it as base64, 64 hexadecimal characters, or a 32-character string")

// parseMasterKey reads CLAWBOO_SECRETS_MASTER_KEY as the reference does:
// trimmed, then 64 hex characters, then a 32-byte string, then base64
// (padded or not) of exactly 32 bytes.
func parseMasterKey(raw string) ([]byte, error) {
	s := strings.TrimSpace(raw)
	if len(s) == 64 {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	if len(s) == 32 {
		return []byte(s), nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, errBadEnvKey
}

// readMasterKeyFile loads master.key (base64 of 32 bytes). A missing file
// is (nil, nil): the key is made on the first write. Anything unreadable
// is an error, because making a new key would orphan every stored one.
func readMasterKeyFile(path string) ([]byte, error) {
	data, _, err := readSmall(path)
	if err != nil {
		return nil, fmt.Errorf("read master key %s: %w", path, err)
	}
	if data == nil {
		return nil, nil
	}
	s := string(bytes.TrimSpace(data))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, fmt.Errorf("master key %s is not base64 of 32 bytes; restore it, or move it aside to start a new vault (keys stored under it are then lost)", path)
}

// readKey is the master key for decryption: the env override, else
// master.key (re-read if another process made it since Open). Nil when
// no key exists yet, which means nothing can be decrypted.
func (v *Vault) readKey() []byte {
	if v.envKey != nil {
		return v.envKey
	}
	v.mu.RLock()
	k := v.fileKey
	v.mu.RUnlock()
	if k != nil {
		return k
	}
	k, err := readMasterKeyFile(v.path(masterKeyFile))
	if err != nil {
		v.log.Warn("vault: master key unreadable", "err", err)
		return nil
	}
	if k != nil {
		v.mu.Lock()
		v.fileKey = k
		v.mu.Unlock()
	}
	return k
}

// writeKey is the master key for encryption, made on first need: 32
// random bytes as base64 text, 0600, published with a hard link so two
// processes racing to create it end up with one key.
func (v *Vault) writeKey() ([]byte, error) {
	if k := v.readKey(); k != nil {
		return k, nil
	}
	v.keyMu.Lock()
	defer v.keyMu.Unlock()
	path := v.path(masterKeyFile)
	if k, err := readMasterKeyFile(path); err != nil || k != nil {
		return v.adoptKey(k, err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate master key: %w", err)
	}
	tmp := path + ".new-" + randomHex(6) // unique: a racing process has its own
	if err := writeAtomic(tmp, []byte(base64.StdEncoding.EncodeToString(key)+"\n")); err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return v.adoptKey(readMasterKeyFile(path))
		}
		// A file system without hard links: a plain rename will do.
		if err := os.Rename(tmp, path); err != nil {
			return nil, fmt.Errorf("create master key %s: %w", path, err)
		}
	}
	v.log.Info("vault: created a master key", "path", path)
	return v.adoptKey(key, nil)
}

func (v *Vault) adoptKey(k []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	v.fileKey = k
	v.mu.Unlock()
	return k, nil
}
