package supervisor

// Readers of a run's events tail the store; these wake them after each
// commit that made more of a run's events durable.

// Watch returns a channel that receives a wake-up whenever more of run id's
// events are durable. Wake-ups coalesce: one pending wake stands for any
// number of commits, so a reader re-reads the store after each wake and
// never misses the last one. Call cancel when done.
func (s *Supervisor) Watch(id string) (wake <-chan struct{}, cancel func()) {
	ch := make(chan struct{}, 1)
	s.watchMu.Lock()
	set := s.watchers[id]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		s.watchers[id] = set
	}
	set[ch] = struct{}{}
	s.watchMu.Unlock()
	return ch, func() {
		s.watchMu.Lock()
		defer s.watchMu.Unlock()
		delete(s.watchers[id], ch)
		if len(s.watchers[id]) == 0 {
			delete(s.watchers, id)
		}
	}
}

func (s *Supervisor) notify(id string) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	for ch := range s.watchers[id] {
		select {
		case ch <- struct{}{}:
		default: // a wake is already pending
		}
	}
}

// watched reports whether anyone streams run id's events now.
func (s *Supervisor) watched(id string) bool {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	return len(s.watchers[id]) > 0
}
