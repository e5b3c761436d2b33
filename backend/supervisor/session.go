package supervisor

import (
	"context"
	"encoding/json"
)

// sessionCodecVersion is the version of the resume handle stored with a
// run. A value of another version is ignored (the run starts fresh), never
// misread.
const sessionCodecVersion = 1

// sessionHandle is the resume handle of a conversation as stored in
// runs.session: the host's conversation key and the runtime's own session
// id within it.
type sessionHandle struct {
	V      int    `json:"v"`
	Key    string `json:"key"`
	Native string `json:"native"`
}

// encodeSession is the stored value for a run that reported native in the
// conversation key ("" when either is missing: nothing to resume).
func encodeSession(key, native string) string {
	if key == "" || native == "" {
		return ""
	}
	b, _ := json.Marshal(sessionHandle{V: sessionCodecVersion, Key: key, Native: native})
	return string(b)
}

// decodeSession returns the native session id of a stored value made for
// key, or "" for an empty, foreign, corrupt or other-version value.
func decodeSession(stored, key string) string {
	var h sessionHandle
	if stored == "" || json.Unmarshal([]byte(stored), &h) != nil || h.V != sessionCodecVersion || h.Key != key {
		return ""
	}
	return h.Native
}

// resumeFor is the native session a run in conversation key continues:
// the last one its runtime reported there. A successor (a fresh session by
// design, unless it is coming back from a mid-run quota pause), a run with
// no key, or a failed read starts fresh.
func (l *liveRun) resumeFor(ctx context.Context, key string) string {
	if key == "" || (l.params.Carry.Generation > 0 && !l.params.Carry.ContinueSession) {
		return ""
	}
	stored, err := l.s.opts.Store.LastSession(ctx, string(l.params.RuntimeID), key)
	if err != nil {
		l.s.opts.Log.Warn("resume handle not read; starting a fresh session", "run", l.id, "err", err)
		return ""
	}
	return decodeSession(stored, key)
}
