package supervisor

import "github.com/clawboo/desktop/backend/store"

// LiveInSession returns the runs live in this process that continue the
// conversation key, as the host sees them: a listing of a conversation
// adds those the ledger may not show yet (its row trails by a commit).
func (s *Supervisor) LiveInSession(key string) []store.Run {
	s.mu.Lock()
	var ls []*liveRun
	for _, l := range s.live {
		if l.params.SessionKey == key {
			ls = append(ls, l)
		}
	}
	s.mu.Unlock()
	out := make([]store.Run, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.snapshot())
	}
	return out
}
