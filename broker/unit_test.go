package broker

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/cluster"
	"github.com/gpusearch/gpusearch/config"
)

func mem(coll string, shard, shards int, gen int64, node string) cluster.Member {
	return cluster.Member{Collection: coll, Shard: shard, Shards: shards, Generation: gen, URL: "http://" + node + ":1", Node: node}
}

// TestRoute: the collection and generations chosen, and each shard's
// replicas.
func TestRoute(t *testing.T) {
	for _, tc := range []struct {
		name       string
		want       string // broker.collection
		members    []cluster.Member
		collection string
		gens       []int64    // per shard; -1 missing
		routed     [][]string // per shard, nodes
		consistent bool
	}{
		{"newest complete generation", "", []cluster.Member{mem("c", 0, 2, 2, "a"), mem("c", 0, 2, 1, "b"), mem("c", 1, 2, 2, "c"), mem("c", 1, 2, 1, "d")},
			"c", []int64{2, 2}, [][]string{{"a"}, {"c"}}, true},
		{"rolling reload half done", "", []cluster.Member{mem("c", 0, 2, 2, "a"), mem("c", 0, 2, 1, "b"), mem("c", 1, 2, 1, "d")},
			"c", []int64{1, 1}, [][]string{{"b"}, {"d"}}, true},
		{"no common generation: each shard's newest", "", []cluster.Member{mem("c", 0, 2, 2, "a"), mem("c", 1, 2, 1, "d")},
			"c", []int64{2, 1}, [][]string{{"a"}, {"d"}}, false},
		{"missing shard", "", []cluster.Member{mem("c", 0, 2, 1, "a"), mem("c", 0, 2, 1, "b")},
			"c", []int64{1, -1}, [][]string{{"a", "b"}, nil}, true},
		{"a complete collection over an incomplete newer one", "", []cluster.Member{mem("x", 0, 2, 1, "a"), mem("x", 1, 2, 1, "b"), mem("y", 0, 2, 9, "c")},
			"x", []int64{1, 1}, [][]string{{"a"}, {"b"}}, true},
		{"the collection configured", "y", []cluster.Member{mem("x", 0, 2, 1, "a"), mem("x", 1, 2, 1, "b"), mem("y", 0, 2, 9, "c")},
			"y", []int64{9, -1}, [][]string{{"c"}, nil}, true},
		{"a whole-collection node beside shards: the newer", "", []cluster.Member{mem("c", 0, 2, 1, "a"), mem("c", 1, 2, 1, "b"), mem("c", 0, 1, 3, "w")},
			"c", []int64{3}, [][]string{{"w"}}, true},
		{"nothing registered", "", nil, "", nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := map[int]*shardState{}
			tb := route(tc.members, tc.want, func(m cluster.Member) *replica { return &replica{m: m, lat: newWindow()} },
				func(i int) *shardState {
					if st[i] == nil {
						st[i] = &shardState{lat: newWindow(), batchLat: newWindow()}
					}
					return st[i]
				})
			var gens []int64
			var routed [][]string
			for _, s := range tb.shards {
				gens = append(gens, s.generation)
				var nodes []string
				for _, r := range s.replicas {
					nodes = append(nodes, r.m.Node)
				}
				routed = append(routed, nodes)
			}
			if tb.collection != tc.collection || !reflect.DeepEqual(gens, tc.gens) || !reflect.DeepEqual(routed, tc.routed) || tb.consistent != tc.consistent {
				t.Errorf("collection %q generations %v routed %v consistent %v, want %q %v %v %v",
					tb.collection, gens, routed, tb.consistent, tc.collection, tc.gens, tc.routed, tc.consistent)
			}
		})
	}
}

// TestPickLeastOutstanding: the replica with the fewest requests
// outstanding is picked, a failed one only when no other is left.
func TestPickLeastOutstanding(t *testing.T) {
	rs := []*replica{{m: cluster.Member{Node: "a"}}, {m: cluster.Member{Node: "b"}}, {m: cluster.Member{Node: "c"}}}
	s := &shard{replicas: rs}
	now := time.Now()
	rs[0].outstanding.Store(3)
	rs[1].outstanding.Store(1)
	rs[2].outstanding.Store(2)
	for range 10 {
		if got := s.pick(nil, now); got != rs[1] {
			t.Fatalf("picked %s, want b (1 outstanding)", got.m.Node)
		}
	}
	rs[1].downUntil.Store(now.Add(time.Second).UnixNano())
	if got := s.pick(nil, now); got != rs[2] {
		t.Fatalf("with b down, picked %s, want c", got.m.Node)
	}
	if got := s.pick([]*replica{rs[0], rs[2]}, now); got != rs[1] {
		t.Fatalf("with a and c tried, picked %v, want b although down", got)
	}
	if got := s.pick(rs, now); got != nil {
		t.Fatalf("with every replica tried, picked %s", got.m.Node)
	}
}

// TestMergeHitsEqualsSortedUnion: shards' top n lists, merged, are the
// best n of all their documents, on random scores with many ties.
func TestMergeHitsEqualsSortedUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rank := func(a, b api.Hit) int { // higher score first, then lower docid
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.DocID, b.DocID))
	}
	for trial := range 300 {
		docs, shards, n := 1+r.IntN(300), 1+r.IntN(6), 1+r.IntN(40)
		all := make([]api.Hit, docs)
		for d := range all {
			all[d] = api.Hit{DocID: uint32(d), Score: float32(r.IntN(20)) / 4} // few distinct scores: ties
		}
		parts := make([][]api.Hit, shards)
		for d, h := range all { // contiguous docid ranges, as shards are
			s := d * shards / docs
			parts[s] = append(parts[s], h)
		}
		for i := range parts {
			slices.SortFunc(parts[i], rank)
			parts[i] = parts[i][:min(n, len(parts[i]))]
		}
		slices.SortFunc(all, rank)
		want := all[:min(n, len(all))]
		if got := mergeHits(parts, n); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: merge of %d shards = %v, want %v", trial, shards, got, want)
		}
	}
}

// fakeNode answers /search with fixed hits after delay (read per
// request), counting its requests.
type fakeNode struct {
	srv    *httptest.Server
	hits   []api.Hit
	delay  atomic.Int64
	calls  atomic.Int64
	status atomic.Int64 // answered instead of hits when not 0
}

func newFakeNode(t *testing.T, hits []api.Hit) *fakeNode {
	f := &fakeNode{hits: hits}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		select {
		case <-time.After(time.Duration(f.delay.Load())):
		case <-r.Context().Done():
			return
		}
		if st := int(f.status.Load()); st != 0 {
			w.WriteHeader(st)
			json.NewEncoder(w).Encode(api.ErrorResponse{Error: "failing on purpose"})
			return
		}
		if r.Method == http.MethodPost { // /msearch: every line gets the hits
			var items []map[string]any
			body, _ := io.ReadAll(r.Body)
			for range strings.Count(string(body), "\n") {
				items = append(items, map[string]any{"mode": "or", "engine": "cpu", "hits": f.hits, "status": 200})
			}
			json.NewEncoder(w).Encode(map[string]any{"responses": items})
			return
		}
		json.NewEncoder(w).Encode(api.SearchResponse{Query: r.URL.Query().Get("q"), Mode: "or", Engine: "cpu", Hits: f.hits})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// newTestBroker is a broker over members, without etcd.
func newTestBroker(t *testing.T, tune func(*config.Broker), members ...cluster.Member) *Broker {
	c := config.Default()
	c.Broker.CacheEntries = 0
	if tune != nil {
		tune(&c.Broker)
	}
	b, err := New(Options{Config: c})
	if err != nil {
		t.Fatal(err)
	}
	b.Update(cluster.Snapshot{Members: members})
	t.Cleanup(b.Close)
	return b
}

func memberAt(f *fakeNode, shard, shards int, node string) cluster.Member {
	return cluster.Member{Collection: "c", Shard: shard, Shards: shards, Generation: 1, URL: f.srv.URL, Node: node}
}

func get(t *testing.T, b *Broker, path string) (int, SearchResponse) {
	t.Helper()
	w := httptest.NewRecorder()
	b.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	var resp SearchResponse
	if w.Code == http.StatusOK {
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
	}
	return w.Code, resp
}

// TestHedgeSlowReplica: once a shard's p95 is known, a request slower
// than it is sent to the other replica too, and the faster answer wins.
func TestHedgeSlowReplica(t *testing.T) {
	hits := []api.Hit{{DocID: 1, Score: 2}}
	a, bnode := newFakeNode(t, hits), newFakeNode(t, hits)
	b := newTestBroker(t, nil, memberAt(a, 0, 1, "a"), memberAt(bnode, 0, 1, "b"))
	for i := range 2 * minHedgeSamples {
		if code, _ := get(t, b, fmt.Sprintf("/search?q=warm%d", i)); code != http.StatusOK {
			t.Fatalf("warming up: %d", code)
		}
	}
	a.delay.Store(int64(2 * time.Second))
	for i := range 6 {
		began := time.Now()
		code, resp := get(t, b, fmt.Sprintf("/search?q=slow%d", i))
		if code != http.StatusOK || len(resp.Hits) != 1 {
			t.Fatalf("status %d, %d hits", code, len(resp.Hits))
		}
		if took := time.Since(began); took > time.Second {
			t.Fatalf("answer took %s: the slow replica was not hedged", took)
		}
	}
	if st := b.Stats().Cluster.Shards[0]; st.Hedges == 0 {
		t.Fatalf("no hedge counted: %+v", st)
	}
}

// TestPartialWhenShardDown: with no replica of shard 1 left, answers
// carry shard 0's hits, flagged partial, and are not cached; /healthz
// says which shard is missing; with no shard at all, 503.
func TestPartialWhenShardDown(t *testing.T) {
	s0 := newFakeNode(t, []api.Hit{{DocID: 3, Score: 5}, {DocID: 1, Score: 4}})
	s1 := newFakeNode(t, []api.Hit{{DocID: 12, Score: 4.5}})
	b := newTestBroker(t, func(c *config.Broker) { c.CacheEntries = 100 }, memberAt(s0, 0, 2, "a"), memberAt(s1, 1, 2, "b"))
	code, resp := get(t, b, "/search?q=x&k=3")
	if ids := docids(resp.Hits); code != http.StatusOK || resp.Partial || !slices.Equal(ids, []uint32{3, 12, 1}) {
		t.Fatalf("complete: %d partial %v hits %v", code, resp.Partial, ids)
	}
	s1.srv.Close() // its registration stays until its lease expires
	for range 2 {
		code, resp = get(t, b, "/search?q=y&k=3")
		if ids := docids(resp.Hits); code != http.StatusOK || !resp.Partial || !slices.Equal(resp.MissingShards, []int{1}) || !slices.Equal(ids, []uint32{3, 1}) {
			t.Fatalf("shard 1 down: %d partial %v missing %v hits %v", code, resp.Partial, resp.MissingShards, ids)
		}
		if resp.Cached {
			t.Fatal("a partial answer came from the cache")
		}
	}
	w := httptest.NewRecorder()
	b.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/msearch", strings.NewReader("{\"q\": \"a\", \"k\": 1}\n{\"q\": \"b\"}\n")))
	var ms MsearchResponse
	if err := json.Unmarshal(w.Body.Bytes(), &ms); err != nil || w.Code != http.StatusOK || len(ms.Responses) != 2 {
		t.Fatalf("/msearch: %d %s", w.Code, w.Body.String())
	}
	for i, it := range ms.Responses {
		if it.Status != http.StatusOK || !it.Partial || !slices.Equal(it.MissingShards, []int{1}) || len(it.Hits) != []int{1, 2}[i] {
			t.Errorf("/msearch line %d: status %d partial %v missing %v, %d hits", i+1, it.Status, it.Partial, it.MissingShards, len(it.Hits))
		}
	}
	b.Update(cluster.Snapshot{Members: []cluster.Member{memberAt(s0, 0, 2, "a")}}) // its lease expired
	w = httptest.NewRecorder()
	b.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "1") {
		t.Errorf("/healthz: %d %q, want 503 naming shard 1", w.Code, w.Body.String())
	}
	if _, resp = get(t, b, "/search?q=z&k=3"); !resp.Partial || !slices.Equal(resp.MissingShards, []int{1}) {
		t.Errorf("shard 1 unregistered: partial %v missing %v", resp.Partial, resp.MissingShards)
	}
	s0.srv.Close()
	if code, _ := get(t, b, "/search?q=w"); code != http.StatusServiceUnavailable {
		t.Errorf("no shard answering: %d, want 503", code)
	}
	b.Update(cluster.Snapshot{})
	if code, _ := get(t, b, "/search?q=w"); code != http.StatusServiceUnavailable {
		t.Errorf("no member: %d, want 503", code)
	}
}

func docids(hits []api.Hit) []uint32 {
	out := make([]uint32, len(hits))
	for i, h := range hits {
		out[i] = h.DocID
	}
	return out
}

// TestWindowQuantiles: quantiles of the held samples, the oldest dropped.
func TestWindowQuantiles(t *testing.T) {
	w := newWindow()
	if q := w.quantiles(0.5); q[0] != 0 || w.P95() != 0 {
		t.Fatalf("empty window: %v, p95 %s", q, w.P95())
	}
	for i := range 2 * windowSize {
		w.add(time.Duration(cmp.Or(i/windowSize*1000, 1)) * time.Microsecond) // the first half 1us, the second 1ms
	}
	if q := w.quantiles(0.5, 0.99); q[0] != time.Millisecond || q[1] != time.Millisecond || w.P95() != time.Millisecond {
		t.Fatalf("quantiles %v, p95 %s: want the latest samples' 1ms", q, w.P95())
	}
}

// TestRetryAndDeadline: a replica that cannot be reached is retried on
// the other and avoided afterwards; one answering 503 is retried on the
// other but stays in the rotation (the 503 may be the request's own); a
// 4xx is the client's answer; a shard slower than broker.shard_timeout is
// missing from the answer.
func TestRetryAndDeadline(t *testing.T) {
	hits := []api.Hit{{DocID: 1, Score: 2}}
	dead, failing, good := newFakeNode(t, hits), newFakeNode(t, hits), newFakeNode(t, hits)
	slow := newFakeNode(t, []api.Hit{{DocID: 9, Score: 3}})
	dead.srv.Close()
	failing.status.Store(http.StatusServiceUnavailable)
	slow.delay.Store(int64(time.Second))
	b := newTestBroker(t, func(c *config.Broker) { c.ShardTimeout, c.Hedge, c.DownFor = 200*time.Millisecond, false, time.Minute },
		memberAt(dead, 0, 2, "dead"), memberAt(good, 0, 2, "good"), memberAt(slow, 1, 2, "slow"))
	search := func(n int) {
		t.Helper()
		for i := range n {
			code, resp := get(t, b, fmt.Sprintf("/search?q=q%d&mode=or", i))
			if code != http.StatusOK || !slices.Equal(docids(resp.Hits), []uint32{1}) || !slices.Equal(resp.MissingShards, []int{1}) {
				t.Fatalf("status %d, hits %v, missing %v; want shard 0's hit, shard 1 missing", code, docids(resp.Hits), resp.MissingShards)
			}
		}
	}
	search(3)
	st := b.Stats().Cluster.Shards[0]
	if d := st.Replicas[0]; st.Retries != 1 || st.Errors != 0 || !d.Down || d.Requests != 1 {
		t.Errorf("shard 0: %+v, want one retry and the unreachable replica down after its one request", st)
	}

	b.Update(cluster.Snapshot{Members: []cluster.Member{memberAt(failing, 0, 2, "failing"), memberAt(good, 0, 2, "good"), memberAt(slow, 1, 2, "slow")}})
	search(4)
	if f := b.Stats().Cluster.Shards[0].Replicas[0]; f.Node != "failing" || f.Down || f.Errors == 0 || failing.calls.Load() < 2 {
		t.Errorf("the replica answering 503: %+v after %d calls, want it asked again, not down", f, failing.calls.Load())
	}
	good.status.Store(http.StatusConflict) // the request's fault: every replica would say so
	failing.status.Store(http.StatusConflict)
	if code, _ := get(t, b, "/search?q=phrase&mode=or"); code != http.StatusConflict {
		t.Errorf("a node's 409: the broker answered %d", code)
	}
}

// TestRollingReload: while one shard has a replica of the new generation
// and the other not yet, queries stay on the old one; once both have it,
// every shard answers from the new one, and the cache does not serve the
// old generation's answers.
func TestRollingReload(t *testing.T) {
	old0, old1 := newFakeNode(t, []api.Hit{{DocID: 1, Score: 1}}), newFakeNode(t, []api.Hit{{DocID: 11, Score: 1}})
	new0, new1 := newFakeNode(t, []api.Hit{{DocID: 2, Score: 2}}), newFakeNode(t, []api.Hit{{DocID: 12, Score: 2}})
	at := func(f *fakeNode, shard int, gen int64, node string) cluster.Member {
		m := memberAt(f, shard, 2, node)
		m.Generation = gen
		return m
	}
	b := newTestBroker(t, func(c *config.Broker) { c.CacheEntries = 100 }, at(old0, 0, 1, "o0"), at(old1, 1, 1, "o1"))
	ask := func(want ...uint32) {
		t.Helper()
		code, resp := get(t, b, "/search?q=x&mode=or")
		if got := docids(resp.Hits); code != http.StatusOK || !slices.Equal(got, want) {
			t.Fatalf("status %d, hits %v, want %v", code, got, want)
		}
	}
	ask(1, 11)
	b.Update(cluster.Snapshot{Members: []cluster.Member{at(old0, 0, 1, "o0"), at(old1, 1, 1, "o1"), at(new0, 0, 2, "n0")}})
	ask(1, 11)
	if new0.calls.Load() != 0 {
		t.Errorf("the new generation of shard 0 was asked before shard 1 had one")
	}
	b.Update(cluster.Snapshot{Members: []cluster.Member{at(old0, 0, 1, "o0"), at(old1, 1, 1, "o1"), at(new0, 0, 2, "n0"), at(new1, 1, 2, "n1")}})
	ask(2, 12)
	if st := b.Stats().Cluster; !st.Consistent || st.Shards[0].Generation != 2 || st.Shards[1].Generation != 2 {
		t.Errorf("routing %+v, want both shards at generation 2", st)
	}
}
