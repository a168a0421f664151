package api

import (
	"context"
	"time"
)

// watch reads the served index's commit point, meta.json, every interval
// until ctx ends, and reloads the index when the commit names another
// generation than the one served: a `gpusearch index` or `index --update`
// committed over it. The reload is Reload's: requests in flight finish on
// the old generation, which closes after the last one, and new ones get
// the new one at once. A commit whose index does not open stays refused,
// and is not tried again until another commit replaces it (or POST
// /admin/reload asks). An interval of 0 or less watches nothing.
func (s *Server) watch(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	refused := "" // the generation whose reload failed
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if gen, err := s.reloadIfCommitted(refused); err != nil {
			refused = gen
		}
	}
}

// reloadIfCommitted reloads the served index from its directory if the
// directory's commit point names another generation than the one served,
// unless that generation is skip or a reload is running. It returns the
// generation it tried and the reload's error.
func (s *Server) reloadIfCommitted(skip string) (string, error) {
	g := s.cur.Load()
	gen, err := committed(g.dir)
	if err != nil || gen == g.commit() || gen == skip {
		return "", nil // unreadable: a damaged commit point fails the searches, which heal
	}
	if !s.reloadMu.TryLock() { // a reload is running: the next tick looks again
		return "", nil
	}
	defer s.reloadMu.Unlock()
	if s.cur.Load() != g {
		return "", nil
	}
	s.log.Info("the index directory holds a new commit; reloading it", "dir", g.dir, "generation", gen)
	_, err = s.reload(g.dir)
	return gen, err
}
