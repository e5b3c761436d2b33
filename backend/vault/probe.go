package vault

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/clawboo/desktop/backend/config"
	"github.com/zalando/go-keyring"
)

const indexFile = "keychain-index.json"

// keychainIndex is keychain-index.json: the names stored in the keychain,
// never their values, so presence is right the moment the app starts.
type keychainIndex struct {
	Names []string `json:"names"`
}

// probe decides the backend with a canary Set/Get/Delete. The three steps
// run in one worker, so a canary whose Set lands after the timeout is
// still deleted by that worker when the keychain wakes up.
func (v *Vault) probe() {
	defer v.wg.Done()
	user := "clawboo-probe-" + randomHex(8)
	want := randomHex(16)
	_, err := v.kcall(v.ctx, v.probeTimeout, func() (string, error) {
		if err := v.kr.Set(keychainService, user, want); err != nil {
			return "", err
		}
		got, gerr := v.kr.Get(keychainService, user)
		derr := v.kr.Delete(keychainService, user)
		switch {
		case gerr != nil:
			return "", gerr
		case got != want:
			return "", errProbeMismatch
		}
		return "", derr
	})
	v.mu.Lock()
	v.probing = false
	if err == nil {
		v.backend, v.detail = BackendKeychain, ""
	} else {
		v.backend, v.detail = BackendFile, explain(err)
	}
	indexed := len(v.kcNames)
	v.mu.Unlock()
	close(v.decided)
	if err != nil {
		v.log.Warn("vault: using the encrypted file", "reason", v.Status().Detail, "err", err)
		if indexed > 0 {
			v.log.Warn("vault: keys stored in the keychain are unavailable until it answers", "count", indexed)
		}
	} else {
		v.log.Info("vault: keys are kept in the OS keychain")
	}
	v.changed()
	if err == nil {
		v.verifyIndex()
	}
}

// verifyIndex re-reads, in the background, whether each indexed name and
// each provider's slot is really in the keychain (a key may have been
// removed with another tool, or stored by an earlier install), and fixes
// the index. It stops at the first timeout: a keychain that hangs would
// only fill the worker slots.
func (v *Vault) verifyIndex() {
	v.mu.RLock()
	names := slices.Collect(maps.Keys(v.kcNames))
	v.mu.RUnlock()
	for _, n := range config.ProviderEnvVars() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	changed := false
	for _, name := range names {
		if v.ctx.Err() != nil {
			return
		}
		ver := v.version(name)
		_, err := v.kcall(v.ctx, v.callTimeout, func() (string, error) {
			_, err := v.kr.Get(keychainService, name)
			return "", err // the value never leaves the worker
		})
		switch {
		case err == nil:
			changed = v.observe(name, ver, true) || changed
		case errors.Is(err, keyring.ErrNotFound):
			changed = v.observe(name, ver, false) || changed
		case errors.Is(err, ErrKeychainTimeout):
			v.log.Warn("vault: stopped checking the keychain index", "err", err)
			return
		default:
			v.log.Warn("vault: cannot check a keychain item", "name", name, "err", err)
		}
	}
	if changed {
		v.writeIndex()
		v.changed()
	}
}

func (v *Vault) version(name string) uint64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.kcVer[name]
}

// observe records what the keychain said about name, unless a Set or
// Delete of name happened since the observation began (ver). It reports
// whether presence changed.
func (v *Vault) observe(name string, ver uint64, present bool) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.kcVer[name] != ver || v.kcNames[name] == present {
		return false
	}
	if present {
		v.kcNames[name] = true
	} else {
		delete(v.kcNames, name)
	}
	return true
}

// mark records a Set (present) or Delete of name in the keychain and
// persists the index; it reports whether presence changed.
func (v *Vault) mark(name string, present bool) bool {
	v.mu.Lock()
	v.kcVer[name]++
	was := v.kcNames[name]
	if present {
		v.kcNames[name] = true
	} else {
		delete(v.kcNames, name)
	}
	v.mu.Unlock()
	if was != present {
		v.writeIndex()
	}
	return was != present
}

// loadIndex reads keychain-index.json; anything unreadable is an empty
// index, which the background verification repairs.
func (v *Vault) loadIndex() map[string]bool {
	out := map[string]bool{}
	data, _, err := readSmall(v.path(indexFile))
	if err != nil || data == nil {
		return out
	}
	var idx keychainIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		v.log.Warn("vault: ignoring an unreadable keychain index", "err", err)
		return out
	}
	for _, n := range idx.Names {
		if validName(n) == nil {
			out[n] = true
		}
	}
	return out
}

// writeIndex persists the current names. An empty index with no file on
// disk writes nothing, so a user who stores no key gets no files. A
// failure is logged, not returned: the key itself is safely stored.
func (v *Vault) writeIndex() {
	v.indexMu.Lock()
	defer v.indexMu.Unlock()
	v.mu.RLock()
	names := slices.Sorted(maps.Keys(v.kcNames))
	v.mu.RUnlock()
	path := v.path(indexFile)
	if len(names) == 0 && statVersion(path) == nil {
		return
	}
	data, _ := json.MarshalIndent(keychainIndex{Names: append([]string{}, names...)}, "", "  ")
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		v.log.Warn("vault: cannot save the keychain index", "err", err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
