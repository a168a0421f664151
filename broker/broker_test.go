package broker_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/broker"
)

// sameAnswer reports how a broker's answer differs from the single
// index's: the hits, all their fields, and the request's echo.
func sameAnswer(got broker.SearchResponse, want api.SearchResponse) error {
	if got.Partial || len(got.MissingShards) > 0 {
		return fmt.Errorf("partial answer, missing shards %v", got.MissingShards)
	}
	if got.Query != want.Query || got.Mode != want.Mode || got.Engine != want.Engine || got.Start != want.Start {
		return fmt.Errorf("query %q mode %s engine %s start %d, want %q %s %s %d", got.Query, got.Mode, got.Engine, got.Start,
			want.Query, want.Mode, want.Engine, want.Start)
	}
	if len(got.Hits) != len(want.Hits) {
		return fmt.Errorf("%d hits, want %d", len(got.Hits), len(want.Hits))
	}
	for i := range want.Hits {
		if !reflect.DeepEqual(got.Hits[i], want.Hits[i]) {
			return fmt.Errorf("hit %d: %+v, want %+v", i, got.Hits[i], want.Hits[i])
		}
	}
	return nil
}

// TestClusterEqualsSingleIndex: every sample query in every mode, through
// the broker over the shards' replicas, gets the single index's answer.
func TestClusterEqualsSingleIndex(t *testing.T) {
	c := startCluster(t, 2, 10000)
	queries := sampleQueries(t)
	for _, mode := range []string{"and", "or", "andor"} {
		for _, q := range queries {
			path := searchPath(q, mode, 10)
			var want api.SearchResponse
			if status, body, err := get(c.ref.URL, path, &want); err != nil || status != http.StatusOK {
				t.Fatalf("reference %s: %d %s %v", path, status, body, err)
			}
			var got broker.SearchResponse
			if status, body, err := get(c.broker.srv.URL, path, &got); err != nil || status != http.StatusOK {
				t.Fatalf("broker %s: %d %s %v", path, status, body, err)
			}
			if err := sameAnswer(got, want); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
	}
	// The same query again comes from the broker's cache.
	var again broker.SearchResponse
	if _, _, err := get(c.broker.srv.URL, searchPath(queries[0], "or", 10), &again); err != nil || !again.Cached {
		t.Errorf("a query asked again: cached %v (%v), want from the broker's cache", again.Cached, err)
	}

	// A page further down, and a request every node refuses.
	var want api.SearchResponse
	var got broker.SearchResponse
	path := "/search?q=http+server&mode=or&k=7&start=5&highlight=html"
	get(c.ref.URL, path, &want)
	if status, body, err := get(c.broker.srv.URL, path, &got); err != nil || status != http.StatusOK {
		t.Fatalf("broker %s: %d %s %v", path, status, body, err)
	}
	if err := sameAnswer(got, want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, bad := range []string{"/search?q=", "/search?q=x&k=0", "/search?q=x&mode=xor", "/search?q=x&k=900&start=200", "/search?q=x&start=2000", "/search?q=x&k=ten", "/search?q=x&snippets=2"} {
		status, body, _ := get(c.broker.srv.URL, bad, nil)
		wantStatus, wantBody, _ := get(c.ref.URL, bad, nil)
		if status != http.StatusBadRequest || status != wantStatus || body != wantBody {
			t.Errorf("broker %s: %d %s, want the node's %d %s", bad, status, body, wantStatus, wantBody)
		}
	}
}

// TestClusterDocuments: GET /documents/{docid} through the broker is the
// single index's answer, for documents of every shard, and its errors.
func TestClusterDocuments(t *testing.T) {
	c := startCluster(t, 1, 0)
	var paths []string
	for _, docs := range shardDocs {
		paths = append(paths, fmt.Sprintf("/documents/%d", docs[0]), fmt.Sprintf("/documents/%d?text=1", docs[1]-1))
	}
	last := shardDocs[len(shardDocs)-1][1]
	paths = append(paths, fmt.Sprintf("/documents/%d", last), "/documents/x1", "/documents/5?text=maybe")
	for _, p := range paths {
		gotStatus, got, _ := pageGet(t, c.broker.srv.URL+p)
		wantStatus, want, _ := pageGet(t, c.ref.URL+p)
		if gotStatus != wantStatus || (gotStatus == http.StatusOK && got != want) {
			t.Errorf("%s: %d %.200s, want %d %.200s", p, gotStatus, got, wantStatus, want)
		}
	}
}

// TestClusterMsearch: a multi-search through the broker answers each line
// as the single index does, errors included, in order.
func TestClusterMsearch(t *testing.T) {
	c := startCluster(t, 2, 0)
	queries := sampleQueries(t)[:40]
	var body strings.Builder
	for i, q := range queries {
		fmt.Fprintf(&body, "{\"q\": %q, \"mode\": %q, \"k\": %d}\n", q, []string{"and", "or", "andor"}[i%3], 5+i%20)
	}
	body.WriteString("{\"q\": \"\"}\n{\"nope\": 1}\n")
	post := func(base string, v any) {
		resp, err := http.Post(base+"/msearch", "application/x-ndjson", strings.NewReader(body.String()))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s/msearch: %s", base, resp.Status)
		}
		if err := decodeJSON(resp, v); err != nil {
			t.Fatal(err)
		}
	}
	var want api.MsearchResponse
	var got broker.MsearchResponse
	post(c.ref.URL, &want)
	post(c.broker.srv.URL, &got)
	if len(got.Responses) != len(want.Responses) {
		t.Fatalf("%d items, want %d", len(got.Responses), len(want.Responses))
	}
	for i, w := range want.Responses {
		g := got.Responses[i]
		if g.Status != w.Status || g.Error != w.Error {
			t.Fatalf("line %d: status %d %q, want %d %q", i+1, g.Status, g.Error, w.Status, w.Error)
		}
		if w.SearchResponse != nil {
			if err := sameAnswer(*g.SearchResponse, *w.SearchResponse); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
	}
}

// load counts the answers of clients querying the broker: those that
// failed or were wrong, and the partial ones.
type load struct {
	ok, partial, failed atomic.Int64
	mu                  sync.Mutex
	errs                []string
}

func (l *load) fail(format string, args ...any) {
	l.failed.Add(1)
	l.mu.Lock()
	if len(l.errs) < 5 {
		l.errs = append(l.errs, fmt.Sprintf(format, args...))
	}
	l.mu.Unlock()
}

// check is what a load accepts of an answer: nil, or why it is wrong.
type check func(path string, got broker.SearchResponse) error

// runLoad starts clients goroutines asking paths in turn and checking
// each answer; the function returned stops them and returns the counts.
func runLoad(base string, clients int, paths []string, ok check) func() *load {
	l := &load{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := paths[i%len(paths)]
				var got broker.SearchResponse
				status, body, err := get(base, p, &got)
				switch {
				case err != nil:
					l.fail("%s: %v", p, err)
				case status != http.StatusOK:
					l.fail("%s: %d %s", p, status, body)
				default:
					if err := ok(p, got); err != nil {
						l.fail("%s: %v", p, err)
					} else if got.Partial {
						l.partial.Add(1)
					} else {
						l.ok.Add(1)
					}
				}
			}
		}()
	}
	return func() *load { close(stop); wg.Wait(); return l }
}

// answers are the single index's answers to the load's queries: whole,
// and without each shard's documents (what a partial answer must be).
type answers struct {
	paths   []string
	whole   map[string]api.SearchResponse
	without []map[string][]api.Hit // by shard missing
}

// expected asks the single index for the answers of queries (k=10, no
// snippets, the modes in turn), and for each shard the answer over the
// other shards' documents: the top 10 of the single index's best max_k
// hits outside it, in AND-then-OR those of AND if there are 10, else of
// OR, as the broker decides on the shards it has.
func expected(t *testing.T, c *testCluster, queries []string) answers {
	t.Helper()
	a := answers{whole: map[string]api.SearchResponse{}, without: make([]map[string][]api.Hit, len(shardDirs))}
	for s := range a.without {
		a.without[s] = map[string][]api.Hit{}
	}
	deep := func(q, mode string) []api.Hit {
		var r api.SearchResponse
		p := searchPath(q, mode, 1000) + "&snippets=0"
		if status, body, err := get(c.ref.URL, p, &r); err != nil || status != http.StatusOK {
			t.Fatalf("reference %s: %d %s %v", p, status, body, err)
		}
		return r.Hits
	}
	outside := func(hits []api.Hit, s int) []api.Hit {
		var rest []api.Hit
		for _, h := range hits {
			if (h.DocID < shardDocs[s][0] || h.DocID >= shardDocs[s][1]) && len(rest) < 10 {
				rest = append(rest, h)
			}
		}
		if len(rest) < 10 && len(hits) == 1000 {
			t.Fatalf("fewer than 10 of the single index's best 1000 hits are outside shard %d", s)
		}
		return rest
	}
	for i, q := range queries {
		mode := []string{"and", "or", "andor"}[i%3]
		p := searchPath(q, mode, 10) + "&snippets=0"
		var r api.SearchResponse
		if status, body, err := get(c.ref.URL, p, &r); err != nil || status != http.StatusOK {
			t.Fatalf("reference %s: %d %s %v", p, status, body, err)
		}
		a.paths, a.whole[p] = append(a.paths, p), r
		for s := range shardDirs {
			if mode != "andor" {
				a.without[s][p] = outside(deep(q, mode), s)
			} else if and := outside(deep(q, "and"), s); len(and) == 10 {
				a.without[s][p] = and
			} else {
				a.without[s][p] = outside(deep(q, "or"), s)
			}
		}
	}
	return a
}

// complete accepts the single index's answers only.
func (a answers) complete(path string, got broker.SearchResponse) error {
	return sameAnswer(got, a.whole[path])
}

// completeOrWithout accepts the single index's answer, or one flagged
// partial, missing shard s only, whose hits are exactly the single
// index's best outside shard s.
func (a answers) completeOrWithout(s int) check {
	return func(path string, got broker.SearchResponse) error {
		if !got.Partial {
			return a.complete(path, got)
		}
		if !slices.Equal(got.MissingShards, []int{s}) {
			return fmt.Errorf("partial, missing shards %v, want [%d]", got.MissingShards, s)
		}
		if want := a.without[s][path]; !reflect.DeepEqual(got.Hits, want) && !(len(got.Hits) == 0 && len(want) == 0) {
			return fmt.Errorf("partial without shard %d: hits %+v, want %+v", s, got.Hits, want)
		}
		return nil
	}
}

// TestClusterSurvivesReplicaKills: under load, one replica of each shard
// is killed in turn (and brought back): no request fails, every answer is
// the single index's. Both replicas of one shard killed: answers are
// flagged partial and are exactly the other shards' best; restarted, the
// answers are complete again. etcd stopped: the broker keeps answering.
func TestClusterSurvivesReplicaKills(t *testing.T) {
	c := startCluster(t, 2, 0) // every answer from the shards
	a := expected(t, c, sampleQueries(t))
	stop := runLoad(c.broker.srv.URL, 4, a.paths, a.complete)
	time.Sleep(200 * time.Millisecond)
	for s, rs := range c.nodes {
		rs[s%2].kill()
		time.Sleep(400 * time.Millisecond)
		rs[s%2].start()
	}
	if l := stop(); l.failed.Load() > 0 || l.ok.Load() == 0 {
		t.Fatalf("one replica killed per shard: %d answers right, %d failed: %v", l.ok.Load(), l.failed.Load(), l.errs)
	} else {
		t.Logf("one replica killed per shard: %d answers, none failed", l.ok.Load())
	}

	dead := len(c.nodes) - 1
	stop = runLoad(c.broker.srv.URL, 4, a.paths, a.completeOrWithout(dead))
	for _, n := range c.nodes[dead] {
		n.kill()
	}
	time.Sleep(600 * time.Millisecond)
	l := stop()
	if l.failed.Load() > 0 || l.partial.Load() == 0 {
		t.Fatalf("shard %d dead: %d answers complete, %d partial, %d failed: %v", dead, l.ok.Load(), l.partial.Load(), l.failed.Load(), l.errs)
	}
	t.Logf("shard %d dead: %d answers complete, %d partial and exact", dead, l.ok.Load(), l.partial.Load())

	for _, n := range c.nodes[dead] {
		n.start()
	}
	c.broker.waitReplicas(t, len(shardDirs), 2)
	time.Sleep(300 * time.Millisecond) // past broker.down_for
	stop = runLoad(c.broker.srv.URL, 4, a.paths, a.complete)
	time.Sleep(300 * time.Millisecond)
	c.etcd.Kill()
	time.Sleep(500 * time.Millisecond)
	l = stop()
	c.etcd.Restart()
	if l.failed.Load() > 0 || l.ok.Load() == 0 || l.partial.Load() > 0 {
		t.Fatalf("restarted, then etcd down: %d answers right, %d partial, %d failed: %v", l.ok.Load(), l.partial.Load(), l.failed.Load(), l.errs)
	}
	t.Logf("restarted, then etcd down: %d answers, all complete and right", l.ok.Load())
}
