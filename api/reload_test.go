package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// gatedEngine runs the CPU engine once its gate opens (or its context
// ends), so a test can hold a request in flight.
type gatedEngine struct {
	cpu     query.Engine
	gate    chan struct{}
	started chan struct{}
}

func (e gatedEngine) Search(ctx context.Context, q query.Query) (query.Result, error) {
	e.started <- struct{}{}
	select {
	case <-e.gate:
	case <-ctx.Done():
		return query.Result{}, ctx.Err()
	}
	return e.cpu.Search(ctx, q)
}

// gated returns an Options.Auto hook whose engines wait on gate and
// report on started when a search begins.
func gated(gate, started chan struct{}) AutoFunc {
	return func(_ *index.Index, cpu query.Engine, _ []query.Engine) query.Engine {
		return gatedEngine{cpu: cpu, gate: gate, started: started}
	}
}

// copyIndex copies an index directory to dst (removed at the end of the
// test), so that a test can damage it, and returns dst.
func copyIndex(t *testing.T, src, dst string) string {
	t.Helper()
	t.Cleanup(func() { os.RemoveAll(dst) })
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReload(t *testing.T) {
	s, ts := newTestServer(t, testConfig(indexA))
	c := ts.Client()
	// Reloads pick directories under the root, which holds the served index.
	root := filepath.Dir(indexA)
	corrupt := copyIndex(t, indexA, filepath.Join(root, "corrupt"))
	docids, err := fs.Glob(os.DirFS(corrupt), "docids.bin")
	if len(docids) == 0 {
		docids, err = fs.Glob(os.DirFS(corrupt), "*/docids.bin") // in the index's generation
	}
	if len(docids) != 1 || err != nil {
		t.Fatalf("docids.bin under %s: %v, %v", corrupt, docids, err)
	}
	docids[0] = filepath.Join(corrupt, docids[0])
	b, err := os.ReadFile(docids[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(docids[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	notIndex := filepath.Join(root, "not-an-index")
	if err := os.Mkdir(notIndex, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(notIndex) })
	nameA, nameB := filepath.Base(indexA), filepath.Base(indexB)

	var first SearchResponse
	getJSON(t, c, ts.URL+"/search?q=alpha", &first) // fills the cache
	steps := []struct {
		name     string
		body     string
		status   int
		want     string // in the reload's answer
		serving  string // index dir served afterwards
		host     string // host of the hits afterwards
		docs     uint64
		previous string
	}{
		{"to B", `{"index":"` + indexB + `"}`, 200, `"docs":220`, nameB, "b.test", 220, nameA},
		{"damaged index refused", `{"index":"corrupt"}`, 409, "checksum", nameB, "b.test", 220, ""},
		{"not an index refused", `{"index":"not-an-index"}`, 409, "meta.json", nameB, "b.test", 220, ""},
		{"empty body: the configured index", "", 200, `"docs":150`, nameA, "a.test", 150, nameB},
		{"empty object: the configured index", "{}", 200, `"docs":150`, nameA, "a.test", 150, nameA},
		{"relative to the root", `{"index":"` + nameB + `"}`, 200, `"docs":220`, nameB, "b.test", 220, nameA},
	}
	oks := 0
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			status, body := reload(t, c, ts.URL, st.body)
			if status != st.status || !strings.Contains(body, st.want) {
				t.Fatalf("POST /admin/reload %s = %d %s, want %d with %q", st.body, status, body, st.status, st.want)
			}
			if status == 200 {
				oks++
				if !strings.Contains(body, `"previous":"`+st.previous+`"`) {
					t.Errorf("reload answer %s, want previous %s", body, st.previous)
				}
			}
			var stats StatsResponse
			getJSON(t, c, ts.URL+"/stats", &stats)
			if stats.Index.Dir != st.serving || stats.Index.Docs != st.docs || stats.Server.Reloads != int64(oks) {
				t.Errorf("/stats index = %s with %d docs, %d reloads; want %s with %d docs, %d reloads",
					stats.Index.Dir, stats.Index.Docs, stats.Server.Reloads, st.serving, st.docs, oks)
			}
			var got SearchResponse
			getJSON(t, c, ts.URL+"/search?q=alpha", &got)
			if len(got.Hits) == 0 || !allFrom(got.Hits, st.host) {
				t.Errorf("/search?q=alpha after reload = %v, want hits from %s", got.Hits, st.host)
			}
			if status == 200 && got.Cached {
				t.Errorf("/search?q=alpha right after a reload answered from the cache")
			}
			_, metrics := do(t, c, "GET", ts.URL+"/metrics", "")
			if want := fmt.Sprintf("gpusearch_index_documents %d\n", st.docs); !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %q", want)
			}
		})
	}
	_, metrics := do(t, c, "GET", ts.URL+"/metrics", "")
	for _, want := range []string{`gpusearch_index_reloads_total{result="ok"} 4`, `gpusearch_index_reloads_total{result="refused"} 2`} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if _, err := s.Reload(notIndex); err == nil {
		t.Errorf("Reload(%s) = nil error, want one", notIndex)
	}
}

func allFrom(hits []Hit, host string) bool {
	for _, h := range hits {
		if !strings.HasPrefix(h.URL, "http://"+host+"/") {
			return false
		}
	}
	return true
}

// TestReloadInFlight holds a search in flight across a reload: it must
// finish on the old index, which closes only afterwards.
func TestReloadInFlight(t *testing.T) {
	gate, started := make(chan struct{}), make(chan struct{}, 1)
	cfg := testConfig(indexA)
	s, err := New(Options{Config: cfg, Auto: gated(gate, started)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	old := s.cur.Load()

	type answer struct {
		code int
		body string
	}
	done := make(chan answer)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/search?q=alpha&engine=auto", nil))
		done <- answer{rec.Code, rec.Body.String()}
	}()
	<-started
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, adminRequest("/admin/reload", `{"index":"`+indexB+`"}`))
	if rec.Code != 200 {
		t.Fatalf("reload = %d %s, want 200", rec.Code, rec.Body)
	}
	if n := old.refs.Load(); n != 1 {
		t.Errorf("old generation refs = %d during the in-flight search, want 1 (the search's)", n)
	}
	// A new request sees the new index at once.
	go func() { <-started }()
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/search?q=alpha&engine=cpu", nil))
	if !strings.Contains(rec.Body.String(), "http://b.test/") {
		t.Errorf("search after reload = %s, want b.test hits", rec.Body)
	}
	close(gate)
	a := <-done
	if a.code != 200 || !strings.Contains(a.body, "http://a.test/") || strings.Contains(a.body, "http://b.test/") {
		t.Errorf("in-flight search = %d %s, want 200 with a.test hits only", a.code, a.body)
	}
	if n := old.refs.Load(); n != 0 {
		t.Errorf("old generation refs = %d after the search ended, want 0 (closed)", n)
	}
}

// TestReloadConcurrent queries from many goroutines while /admin/reload
// swaps two indexes back and forth: every answer must be 200 and equal to
// one index's answer, never a mix. Run with -race.
func TestReloadConcurrent(t *testing.T) {
	// The reference engine answers: the engines' agreement is package
	// query's to test; this test is about the swap.
	queries := []string{"q=alpha", "q=bravo+charlie&mode=and", "q=golf+hotel&mode=or", "q=echo+jasper", "q=delta&k=20", "q=kilo+lima&mode=or&k=5"}
	for i := range queries {
		queries[i] += "&engine=exhaustive"
	}
	want := map[string]map[string]string{} // dir -> query -> hits JSON
	for _, dir := range []string{indexA, indexB} {
		_, ref := newTestServer(t, testConfig(dir))
		want[dir] = map[string]string{}
		for _, q := range queries {
			var r SearchResponse
			getJSON(t, ref.Client(), ref.URL+"/search?"+q, &r)
			want[dir][q] = fmt.Sprint(r.Hits)
		}
	}
	cfg := testConfig(indexA)
	cfg.Server.CacheEntries = 4 // small: entries are evicted and refilled
	s, ts := newTestServer(t, cfg)
	c := ts.Client()

	const workers, perWorker, reloads = 8, 80, 30
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker+reloads)
	var seen sync.Map // dir -> true
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				q := queries[(w+i)%len(queries)]
				var r SearchResponse
				status, body, err := fetch(c, "GET", ts.URL+"/search?"+q, "")
				if err != nil {
					errs <- err
					continue
				}
				if status != 200 {
					errs <- fmt.Errorf("GET /search?%s = %d %s", q, status, body)
					continue
				}
				if err := json.Unmarshal([]byte(body), &r); err != nil {
					errs <- err
					continue
				}
				got := fmt.Sprint(r.Hits)
				switch got {
				case want[indexA][q]:
					seen.Store(indexA, true)
				case want[indexB][q]:
					seen.Store(indexB, true)
				default:
					errs <- fmt.Errorf("GET /search?%s = %s, want index A's %s or index B's %s", q, got, want[indexA][q], want[indexB][q])
				}
			}
		}()
	}
	var olds []*generation
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range reloads {
			dir := []string{indexB, indexA}[i%2]
			olds = append(olds, s.cur.Load()) // only this goroutine swaps
			status, body, err := send(c, adminRequest(ts.URL+"/admin/reload", `{"index":"`+dir+`"}`))
			if err != nil || status != 200 {
				errs <- fmt.Errorf("reload %s = %d %s (%v)", dir, status, body, err)
			}
		}
	}()
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	for _, dir := range []string{indexA, indexB} {
		if _, ok := seen.Load(dir); !ok {
			t.Errorf("no answer came from %s: the test did not exercise the swap", dir)
		}
	}
	for i, g := range olds {
		if n := g.refs.Load(); n != 0 {
			t.Errorf("generation swapped out by reload %d has %d references, want 0 (closed)", i, n)
		}
	}
}
