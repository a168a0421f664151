package api

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// damageQueries are the searches the damage tests send: every word of the
// vocabulary alone (OR), and pairs of them (AND).
func damageQueries() []string {
	var qs []string
	for i, w := range vocabulary {
		qs = append(qs, "/search?mode=or&q="+w)
		qs = append(qs, "/search?mode=and&q="+url.QueryEscape(w+" "+vocabulary[(i+1)%len(vocabulary)]))
	}
	return qs
}

// findFile is the path of the file named name under the index in dir.
func findFile(t *testing.T, dir, name string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found = p
		}
		return err
	})
	if found == "" {
		t.Fatalf("no %s under %s", name, dir)
	}
	return found
}

// shrink truncates the served file name to nothing, as a copy over it
// does first: every page of its mapping is gone, and reading one faults
// (SIGBUS).
func shrink(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Truncate(findFile(t, dir, name), 0); err != nil {
			t.Fatal(err)
		}
	}
}

// garble overwrites the served file name in place with as many bytes of
// garbage, which the mapping shows at once.
func garble(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		f, err := os.OpenFile(findFile(t, dir, name), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		junk := make([]byte, st.Size())
		for i := range junk {
			junk[i] = 0xff
		}
		if _, err := f.WriteAt(junk, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// copyOver copies the index in src over the one in dir file by file, in
// place, as cp does: each file is truncated, then written.
func copyOver(src string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// answers are the hits the server gives each query, by query.
type answers map[string][]Hit

// answersOf asks every query of damageQueries once, wanting 200s.
func answersOf(t *testing.T, c *http.Client, base string) answers {
	t.Helper()
	a := answers{}
	for _, q := range damageQueries() {
		var r SearchResponse
		getJSON(t, c, base+q, &r)
		a[q] = r.Hits
	}
	return a
}

// damageOutcome checks one answer given while the index was damaged: a
// 200 with one of the wanted answers, or a 503 with a JSON error; it
// reports whether it was a 503.
func damageOutcome(q string, status int, body string, want ...answers) (bool, error) {
	switch status {
	case http.StatusOK:
		var r SearchResponse
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return false, fmt.Errorf("%s: 200 %q: %v", q, body, err)
		}
		for _, w := range want {
			if equalHits(r.Hits, w[q]) {
				return false, nil
			}
		}
		return false, fmt.Errorf("%s: 200 with hits %v, not an answer of any index served", q, r.Hits)
	case http.StatusServiceUnavailable:
		var e ErrorResponse
		if err := json.Unmarshal([]byte(body), &e); err != nil || !strings.Contains(e.Error, "changed on disk") {
			return true, fmt.Errorf("%s: 503 %q, want a JSON error saying the index changed on disk", q, body)
		}
		return true, nil
	}
	return false, fmt.Errorf("%s: %d %s, want 200 or 503", q, status, body)
}

// TestServedFilesChangedOnDisk: a data file of the served index shrinks
// (its mapped pages vanish: reading them faults) or is rewritten in place
// while queries run, on the request goroutines (engine=cpu) and on the
// scheduler's workers (engine=auto). The server does not crash: each query
// gets the right answer or a 503 saying the index changed on disk, never a
// 500 or a wrong answer. When the files on disk make a good index again
// (another index copied over), the server reloads it by itself; otherwise
// it answers 503 until a fresh index is written and reloaded, and then
// answers right again. Served from memory (server.index_memory: huge),
// the postings are the server's own copy: damage to docids.bin or
// freqs.bin on disk is not seen, and every answer stays right.
func TestServedFilesChangedOnDisk(t *testing.T) {
	_, tsB := newTestServer(t, testConfig(indexB))
	wantB := answersOf(t, tsB.Client(), tsB.URL)
	for _, tt := range []struct {
		name   string
		damage func(*testing.T, string)
		heals  bool // the files on disk make a good index afterwards: indexB's
		// postings: only the postings are damaged, which huge keeps
		// in memory.
		postings bool
	}{
		{"docids.bin shrunk", shrink("docids.bin"), false, true},
		{"freqs.bin shrunk", shrink("freqs.bin"), false, true},
		{"docids.bin garbled", garble("docids.bin"), false, true},
		{"freqs.bin garbled", garble("freqs.bin"), false, true},
		{"another index copied over", copyOver(indexB), true, false},
	} {
		for _, run := range []struct{ engine, memory string }{{"cpu", "mapped"}, {"auto", "mapped"}, {"cpu", "huge"}} {
			t.Run(tt.name+"/"+run.engine+"/"+run.memory, func(t *testing.T) {
				unseen := run.memory == "huge" && tt.postings
				root := t.TempDir()
				dir, err := buildIndex(root, "a.test", 150, 1)
				if err != nil {
					t.Fatal(err)
				}
				cfg := testConfig(dir)
				cfg.Server.CacheEntries = 0 // every query reads the index
				cfg.Search.Engine = run.engine
				cfg.Server.IndexMemory = run.memory
				// Reloads call auto on request goroutines: no t.Fatal.
				auto := func(ix *index.Index, cpu query.Engine, _ []query.Engine) query.Engine {
					s, err := schedule.New(ix, schedule.Config{Policy: schedule.PolicyCPU, CPU: cpu, CPUWorkers: 2})
					if err != nil {
						t.Error(err)
						return cpu
					}
					return s
				}
				s, err := New(Options{Config: cfg, Auto: auto})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				ts := httptest.NewServer(s.Handler())
				defer ts.Close()
				c := ts.Client()
				wantA := answersOf(t, c, ts.URL)

				// Clients query until stopped, checking every answer.
				var unavailable atomic.Int64
				var failures sync.Map
				stop := make(chan struct{})
				var wg sync.WaitGroup
				for w := range 4 {
					wg.Go(func() {
						qs := damageQueries()
						for i := w; ; i++ {
							select {
							case <-stop:
								return
							default:
							}
							q := qs[i%len(qs)]
							status, body, err := fetch(c, http.MethodGet, ts.URL+q, "")
							if err == nil {
								var was503 bool
								if was503, err = damageOutcome(q, status, body, wantA, wantB); was503 {
									unavailable.Add(1)
								}
							}
							if err != nil {
								failures.LoadOrStore(err.Error(), true)
							}
						}
					})
				}
				time.Sleep(50 * time.Millisecond)
				tt.damage(t, dir)
				for deadline := time.Now().Add(5 * time.Second); !unseen && unavailable.Load() == 0 && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond) // queries on the damaged index
				close(stop)
				wg.Wait()
				failures.Range(func(k, _ any) bool {
					t.Error(k)
					return true
				})
				switch n := unavailable.Load(); {
				case unseen && n > 0:
					t.Fatalf("%d queries answered 503 after damage to postings the server holds in memory", n)
				case !unseen && n == 0:
					t.Fatal("no query answered 503 after the damage: the damaged file was not read")
				}

				want := wantA
				if tt.heals {
					want = wantB
				} else {
					if _, err := buildIndex(root, "a.test", 150, 1); err != nil {
						t.Fatal(err)
					}
					if _, err := s.Reload(""); err != nil {
						t.Fatalf("Reload of the fresh index: %v", err)
					}
				}
				// The server serves a sound index again: the fresh one
				// reloaded, or the copied one it reloaded by itself.
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					q := damageQueries()[0]
					status, body := do(t, c, http.MethodGet, ts.URL+q, "")
					if _, err := damageOutcome(q, status, body, want); err == nil && status == http.StatusOK {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s = %d %s five seconds after the index was sound again", q, status, body)
					}
				}
				if got := answersOf(t, c, ts.URL); !maps.EqualFunc(got, want, equalHits) {
					t.Errorf("answers after the index was sound again differ from the index's")
				}
			})
		}
	}
}
