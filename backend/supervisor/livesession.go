package supervisor

import "github.com/clawboo/desktop/backend/store"

// LiveInSession returns the runs live in this process that continue the
// conversation key, as the host sees them: a listing of a conversation
// adds those the ledger may not show yet (its row trails by a commit).
func (s *Supervisor) LiveInSession(key string) []store.Run {
	return s.liveWhere(func(l *liveRun) bool { return l.params.SessionKey == key })
}

// LiveRuns returns every run live in this process, as the host sees it:
// the newest page of the runs list adds those whose row trails by a
// commit, so a run that has just started is never missing from it.
func (s *Supervisor) LiveRuns() []store.Run {
	return s.liveWhere(func(*liveRun) bool { return true })
}

func (s *Supervisor) liveWhere(keep func(*liveRun) bool) []store.Run {
	s.mu.Lock()
	var ls []*liveRun
	for _, l := range s.live {
		if keep(l) {
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
