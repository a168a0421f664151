package broker_test

import (
	"fmt"
	"net/http"
	"reflect"
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
	c := startCluster(t, 2)
	queries := sampleQueries(t)
	for _, mode := range []string{"and", "or", "andor"} {
		for _, k := range []int{10, 50} {
			for _, q := range queries {
				path := searchPath(q, mode, k)
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
	for _, bad := range []string{"/search?q=", "/search?q=x&k=0", "/search?q=x&mode=xor", "/search?q=x&k=900&start=200", "/search?q=x&snippets=2"} {
		status, body, _ := get(c.broker.srv.URL, bad, nil)
		wantStatus, wantBody, _ := get(c.ref.URL, bad, nil)
		if status != http.StatusBadRequest || status != wantStatus || body != wantBody {
			t.Errorf("broker %s: %d %s, want the node's %d %s", bad, status, body, wantStatus, wantBody)
		}
	}
}

// TestClusterMsearch: a multi-search through the broker answers each line
// as the single index does, errors included, in order.
func TestClusterMsearch(t *testing.T) {
	c := startCluster(t, 2)
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

// load runs clients that query the broker until stop is closed and
// counts the answers that failed, or were partial or wrong; each query
// is checked against the single index's answer.
type load struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	errs       []string
}

func (l *load) fail(format string, args ...any) {
	l.failed.Add(1)
	l.mu.Lock()
	if len(l.errs) < 5 {
		l.errs = append(l.errs, fmt.Sprintf(format, args...))
	}
	l.mu.Unlock()
}

// runLoad starts clients goroutines asking the queries of want in turn;
// the returned function stops them and returns the counts.
func runLoad(base string, clients int, want map[string]api.SearchResponse) func() *load {
	l := &load{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
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
					if err := sameAnswer(got, want[p]); err != nil {
						l.fail("%s: %v", p, err)
					} else {
						l.ok.Add(1)
					}
				}
			}
		}()
	}
	return func() *load { close(stop); wg.Wait(); return l }
}

// expected asks the single index for the answers of queries' paths,
// with k past the broker's cache (varied per query so that the load
// reaches the shards).
func expected(t *testing.T, c *testCluster, queries []string) map[string]api.SearchResponse {
	t.Helper()
	want := map[string]api.SearchResponse{}
	for i, q := range queries {
		p := searchPath(q, []string{"and", "or", "andor"}[i%3], 10) + "&snippets=0"
		var r api.SearchResponse
		if status, body, err := get(c.ref.URL, p, &r); err != nil || status != http.StatusOK {
			t.Fatalf("reference %s: %d %s %v", p, status, body, err)
		}
		want[p] = r
	}
	return want
}

// TestClusterSurvivesReplicaKills: under load, one replica of each shard
// is killed in turn (and brought back), then etcd is stopped: no request
// fails and every answer is the single index's.
func TestClusterSurvivesReplicaKills(t *testing.T) {
	c := startCluster(t, 2)
	want := expected(t, c, sampleQueries(t))
	stop := runLoad(c.broker.srv.URL, 4, want)
	time.Sleep(200 * time.Millisecond)
	for s, rs := range c.nodes {
		rs[s%2].kill()
		time.Sleep(400 * time.Millisecond)
		rs[s%2].start()
	}
	c.etcd.Kill()
	time.Sleep(500 * time.Millisecond)
	l := stop()
	c.etcd.Restart()
	if l.failed.Load() > 0 || l.ok.Load() == 0 {
		t.Fatalf("%d answers right, %d failed: %v", l.ok.Load(), l.failed.Load(), l.errs)
	}
	t.Logf("%d answers, none failed", l.ok.Load())
}
