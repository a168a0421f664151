package api

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/indexer"
)

// TestWatchPicksUpUpdate serves an index, holds a search in flight, and
// updates the index on disk with indexer.Update: the watch reloads it,
// new searches find the added document at once, and the search in flight
// finishes, on the old generation, without an error.
func TestWatchPicksUpUpdate(t *testing.T) {
	root := t.TempDir()
	crawl := filepath.Join(root, "crawl")
	if err := os.CopyFS(crawl, os.DirFS(filepath.Join(filepath.Dir(indexA), "crawl-a.test"))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "index")
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1}
	if _, err := indexer.Build(context.Background(), crawl, dir, opts); err != nil {
		t.Fatal(err)
	}
	gate, started := make(chan struct{}), make(chan struct{}, 1)
	s, err := New(Options{Config: testConfig(dir), Auto: gated(gate, started)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.watch(ctx, 5*time.Millisecond)
	h := s.Handler()
	old := s.cur.Load()

	inFlight := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/search?q=alpha&engine=auto", nil))
		inFlight <- rec
	}()
	<-started
	page := filepath.Join(crawl, "a.test", "new-page.txt")
	if err := os.WriteFile(page, []byte("quixotic alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := indexer.Update(context.Background(), crawl, dir, opts)
	if err != nil || rep.Added != 1 || !rep.Committed {
		t.Fatalf("Update = %+v, %v; want one document added and a commit", rep, err)
	}
	for deadline := time.Now().Add(time.Minute); s.cur.Load() == old; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watch did not reload the updated index within a minute")
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/search?q=quixotic&engine=cpu", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "new-page.txt") {
		t.Errorf("a search after the update = %d %s, want the added page", rec.Code, rec.Body)
	}
	close(gate)
	if r := <-inFlight; r.Code != 200 || strings.Contains(r.Body.String(), "new-page.txt") {
		t.Errorf("the search in flight = %d %s, want 200 from the old generation", r.Code, r.Body)
	}
	// The watch's reload drops the server's reference just after the
	// swap the loop above saw: on a loaded machine, after the search in
	// flight has ended.
	for deadline := time.Now().Add(5 * time.Second); old.refs.Load() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := old.refs.Load(); n != 0 {
		t.Errorf("the old generation holds %d references once its last search ended, want 0 (closed)", n)
	}
}

// TestWatchSkipsRefusedCommit commits, over the served index, an index
// whose data file is damaged: the reload is refused, the old index keeps
// serving, and the watch does not try the same commit again.
func TestWatchSkipsRefusedCommit(t *testing.T) {
	root := t.TempDir()
	crawl := filepath.Join(root, "crawl")
	if err := os.CopyFS(crawl, os.DirFS(filepath.Join(filepath.Dir(indexA), "crawl-a.test"))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "index")
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1, Force: true}
	if _, err := indexer.Build(context.Background(), crawl, dir, opts); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Config: testConfig(dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := s.cur.Load()
	if gen, err := s.reloadIfCommitted(""); gen != "" || err != nil {
		t.Errorf("reloadIfCommitted of the served commit = %q, %v; want nothing done", gen, err)
	}
	if _, err := indexer.Build(context.Background(), crawl, dir, opts); err != nil {
		t.Fatal(err)
	}
	gens, err := filepath.Glob(filepath.Join(dir, "gen-*", "docids.bin"))
	if err != nil || len(gens) != 1 {
		t.Fatalf("the new generation's docids.bin: %v, %v", gens, err)
	}
	b, err := os.ReadFile(gens[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(gens[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	gen, err := s.reloadIfCommitted("")
	if gen == "" || err == nil || s.cur.Load() != old {
		t.Fatalf("reloadIfCommitted of a damaged commit = %q, %v; want it refused and the old index served", gen, err)
	}
	if again, err := s.reloadIfCommitted(gen); again != "" || err != nil {
		t.Errorf("reloadIfCommitted skipping %s = %q, %v; want nothing done", gen, again, err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/search?q=alpha&engine=cpu", nil))
	if rec.Code != 200 {
		t.Errorf("a search after the refused commit = %d %s, want the old index's answer", rec.Code, rec.Body)
	}
}
