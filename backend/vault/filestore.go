package vault

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

const (
	keysFile = "runtime-keys.json"
	ivSize   = 12
	tagSize  = 16
)

// errUnparseable marks a runtime-keys.json that exists but cannot be read
// as a JSON object: reads treat it as empty, writes refuse to replace it.
var errUnparseable = errors.New("cannot be read or parsed")

// sealed is one runtime-keys.json entry, in the reference format.
type sealed struct {
	IV         *string `json:"iv"`
	Tag        *string `json:"tag"`
	Ciphertext *string `json:"ciphertext"`
}

// decodeEntry checks an entry's shape without decrypting: three standard
// base64 strings, a 12-byte IV and a 16-byte tag. Anything else is ignored.
func decodeEntry(raw json.RawMessage) (iv, tag, ct []byte, ok bool) {
	var e sealed
	if json.Unmarshal(raw, &e) != nil || e.IV == nil || e.Tag == nil || e.Ciphertext == nil {
		return nil, nil, nil, false
	}
	var err1, err2, err3 error
	iv, err1 = base64.StdEncoding.DecodeString(*e.IV)
	tag, err2 = base64.StdEncoding.DecodeString(*e.Tag)
	ct, err3 = base64.StdEncoding.DecodeString(*e.Ciphertext)
	if err1 != nil || err2 != nil || err3 != nil || len(iv) != ivSize || len(tag) != tagSize {
		return nil, nil, nil, false
	}
	return iv, tag, ct, true
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block) // 12-byte nonce, 16-byte tag
}

// seal encrypts one secret with a fresh random nonce.
func seal(key []byte, plaintext string) (json.RawMessage, error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, fmt.Errorf("encrypt: %w", err)
	}
	iv := make([]byte, ivSize)
	if _, err := rand.Read(iv); err != nil {
		return nil, fmt.Errorf("encrypt: %w", err)
	}
	out := aead.Seal(nil, iv, []byte(plaintext), nil)
	ct, tag := out[:len(out)-tagSize], out[len(out)-tagSize:]
	b64 := base64.StdEncoding.EncodeToString
	s := func(b []byte) *string { x := b64(b); return &x }
	return json.Marshal(sealed{IV: s(iv), Tag: s(tag), Ciphertext: s(ct)})
}

// open decrypts one entry; any failure (shape, key, tampering) is false.
func open(key []byte, raw json.RawMessage) (string, bool) {
	iv, tag, ct, ok := decodeEntry(raw)
	if !ok || len(key) != 32 {
		return "", false
	}
	aead, err := newGCM(key)
	if err != nil {
		return "", false
	}
	pt, err := aead.Open(nil, iv, append(ct, tag...), nil)
	if err != nil {
		return "", false
	}
	return string(pt), true
}

// keyFile is runtime-keys.json with a read cache keyed by the file's
// version, so presence checks cost a stat, not a read and a parse.
type keyFile struct {
	path string

	cmu     sync.Mutex // guards the cache below
	loaded  bool
	info    os.FileInfo
	entries map[string]json.RawMessage
	names   map[string]bool // well-formed entries

	wmu sync.Mutex // serializes read-modify-write cycles
}

func newKeyFile(path string) *keyFile { return &keyFile{path: path} }

// readKeyFile parses the file from disk. Missing is an empty map; a file that
// exists but is not a JSON object is errUnparseable. Whitespace only counts
// as empty, since replacing it destroys nothing.
func readKeyFile(path string) (map[string]json.RawMessage, os.FileInfo, error) {
	data, info, err := readSmall(path)
	if err != nil {
		return nil, info, fmt.Errorf("%s %w (%v)", path, errUnparseable, err)
	}
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) == 0 {
		return m, info, nil
	}
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, info, fmt.Errorf("%s %w (not a JSON object)", path, errUnparseable)
	}
	return m, info, nil
}

// snapshot returns the current entries (read-only) and the well-formed
// names, re-reading only when the file changed.
func (f *keyFile) snapshot() (map[string]json.RawMessage, map[string]bool) {
	cur := statVersion(f.path)
	f.cmu.Lock()
	defer f.cmu.Unlock()
	if f.loaded && sameVersion(f.info, cur) {
		return f.entries, f.names
	}
	m, info, err := readKeyFile(f.path)
	if err != nil {
		m = nil // unreadable counts as empty for reads
	}
	names := make(map[string]bool, len(m))
	for k, raw := range m {
		if _, _, _, ok := decodeEntry(raw); ok {
			names[k] = true
		}
	}
	f.loaded, f.info, f.entries, f.names = true, info, m, names
	return m, names
}

func (f *keyFile) has(name string) bool {
	_, names := f.snapshot()
	return names[name]
}

func (f *keyFile) entry(name string) (json.RawMessage, bool) {
	m, names := f.snapshot()
	if !names[name] {
		return nil, false
	}
	return m[name], true
}

// update runs a read-modify-write cycle on the file as it is on disk now
// (other processes may share it). fn reports whether it changed the map;
// unknown entries are kept byte for byte.
func (f *keyFile) update(fn func(m map[string]json.RawMessage) (bool, error)) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	m, _, err := readKeyFile(f.path)
	if err != nil {
		return fmt.Errorf("refusing to overwrite %s, which would lose the keys in it; move it aside to store keys again: %w", keysFile, err)
	}
	changed, err := fn(m)
	if err != nil || !changed {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", keysFile, err)
	}
	err = writeAtomic(f.path, append(data, '\n'))
	f.cmu.Lock()
	f.loaded = false // the next snapshot re-reads what is on disk
	f.cmu.Unlock()
	return err
}

// fileSet encrypts and stores one secret under name.
func (v *Vault) fileSet(name, secret string) error {
	return v.files.update(func(m map[string]json.RawMessage) (bool, error) {
		key, err := v.writeKey()
		if err != nil {
			return false, err
		}
		raw, err := seal(key, secret)
		if err != nil {
			return false, fmt.Errorf("%s: %w", name, err)
		}
		m[name] = raw
		return true, nil
	})
}

// fileDelete removes name; a missing file or entry is not an error.
func (v *Vault) fileDelete(name string) error {
	if _, err := os.Stat(v.files.path); errors.Is(err, os.ErrNotExist) {
		return nil // nothing to delete, and no file to create
	}
	return v.files.update(func(m map[string]json.RawMessage) (bool, error) {
		if _, ok := m[name]; !ok {
			return false, nil
		}
		delete(m, name)
		return true, nil
	})
}

// fileGet decrypts name; every failure is ("", false).
func (v *Vault) fileGet(name string) (string, bool) {
	raw, ok := v.files.entry(name)
	if !ok {
		return "", false
	}
	key := v.readKey()
	if key == nil {
		v.log.Warn("vault: a key is stored but there is no master key to decrypt it", "name", name)
		return "", false
	}
	s, ok := open(key, raw)
	if !ok {
		v.log.Warn("vault: a stored key cannot be decrypted (wrong master key or a tampered file)", "name", name)
	}
	return s, ok
}
