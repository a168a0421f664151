package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// splitIndex splits the index in src into n shards in a new collection
// directory, which it returns.
func splitIndex(t *testing.T, src string, n int) string {
	t.Helper()
	ix, err := index.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	out := filepath.Join(t.TempDir(), "coll")
	if _, err := index.Split(context.Background(), ix, out, n, index.SplitOptions{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestServeShards: a sharded collection served in one process, and one
// of its shards served alone, answer /search, /msearch and /documents in
// the collection's docids, as the single index does: the same hits,
// titles and snippets; a shard answers 404 for documents outside its
// range; /stats reports each shard's part and generation.
func TestServeShards(t *testing.T) {
	coll := splitIndex(t, indexB, 3)
	_, whole := newTestServer(t, testConfig(indexB))
	_, all := newTestServer(t, testConfig(coll))
	_, one := newTestServer(t, testConfig(filepath.Join(coll, "shard-01")))
	c := whole.Client()

	var st StatsResponse
	getJSON(t, c, one.URL+"/stats", &st)
	if len(st.Index.Shards) != 1 || st.Index.Shards[0].Index != 1 || st.Index.Shards[0].Count != 3 || st.Index.Generation == "" {
		t.Fatalf("one shard's /stats index = %+v", st.Index)
	}
	lo, n := st.Index.Shards[0].FirstDoc, uint32(st.Index.Shards[0].Docs)
	var all3 StatsResponse
	getJSON(t, c, all.URL+"/stats", &all3)
	if len(all3.Index.Shards) != 3 || all3.Index.Docs != 220 || strings.Count(all3.Index.Generation, ",") != 2 || !strings.Contains(all3.Index.Generation, ":") {
		t.Fatalf("the collection's /stats index = %+v", all3.Index)
	}

	for _, q := range []string{"alpha", "bravo+zulu", "jasper", "golf+hotel+india", "nothing"} {
		for _, mode := range []string{"and", "or", "andor"} {
			path := fmt.Sprintf("/search?q=%s&mode=%s&k=20&highlight=html", q, mode)
			var want, got, part SearchResponse
			getJSON(t, c, whole.URL+path, &want)
			getJSON(t, c, all.URL+path, &got)
			if !slices.EqualFunc(got.Hits, want.Hits, sameHit) {
				t.Errorf("%s: the shards answer %+v\nthe index %+v", path, got.Hits, want.Hits)
			}
			getJSON(t, c, one.URL+path, &part)
			for _, h := range part.Hits {
				if h.DocID < lo || h.DocID >= lo+n {
					t.Errorf("%s: shard 1 of docids %d.. answers docid %d", path, lo, h.DocID)
				}
			}
		}
	}
	body := "{\"q\": \"alpha bravo\"}\n{\"q\": \"jasper\", \"mode\": \"and\"}\n"
	var want, got MsearchResponse
	for _, tt := range []struct {
		url string
		v   *MsearchResponse
	}{{whole.URL, &want}, {all.URL, &got}} {
		status, b := do(t, c, http.MethodPost, tt.url+"/msearch", body)
		if status != http.StatusOK {
			t.Fatalf("msearch = %d %s", status, b)
		}
		if err := json.Unmarshal([]byte(b), tt.v); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.Responses) != len(want.Responses) {
		t.Fatalf("msearch: %d answers from the shards, %d from the index", len(got.Responses), len(want.Responses))
	}
	for i := range want.Responses {
		if !slices.EqualFunc(got.Responses[i].Hits, want.Responses[i].Hits, sameHit) {
			t.Errorf("msearch line %d: the shards answer %+v, the index %+v", i, got.Responses[i].Hits, want.Responses[i].Hits)
		}
	}

	for _, d := range []uint32{0, lo, lo + n - 1, 219} {
		path := fmt.Sprintf("/documents/%d?text=1", d)
		var w, g DocumentResponse
		getJSON(t, c, whole.URL+path, &w)
		getJSON(t, c, all.URL+path, &g)
		if *g.Text != *w.Text || g.URL != w.URL || g.DocID != d {
			t.Errorf("%s: the shards answer %+v, the index %+v", path, g, w)
		}
		status, b := do(t, c, http.MethodGet, one.URL+path, "")
		if in := d >= lo && d < lo+n; in != (status == http.StatusOK) || (!in && !strings.Contains(b, "docids")) {
			t.Errorf("shard 1 (docids %d to %d): %s = %d %s", lo, lo+n-1, path, status, b)
		}
	}
}

// sameHit compares hits but for the snippet's cut, which both make alike.
func sameHit(a, b Hit) bool {
	return a.DocID == b.DocID && a.URL == b.URL && a.Score == b.Score && a.Title == b.Title && a.SnippetHTML == b.SnippetHTML
}

// TestWatchReloadsShards: servers serving one shard, and a whole sharded
// collection, reload when the collection is split again over them (new
// generations in the shards' directories, then a new manifest), and
// answer from the new collection.
func TestWatchReloadsShards(t *testing.T) {
	coll := splitIndex(t, indexA, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var servers []*Server
	for _, dir := range []string{filepath.Join(coll, "shard-00"), coll} {
		s, err := New(Options{Config: testConfig(dir)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		go s.watch(ctx, 5*time.Millisecond)
		servers = append(servers, s)
	}
	olds := []*generation{servers[0].cur.Load(), servers[1].cur.Load()}
	oldInfo, _ := olds[0].ix.Shard()
	ix, err := index.Open(indexA)
	if err != nil {
		t.Fatal(err)
	}
	_, err = index.Split(context.Background(), ix, coll, 3, index.SplitOptions{Force: true})
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range servers {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
			g := s.cur.Load()
			if info, _ := g.ix.Shard(); g != olds[i] && info.Collection != oldInfo.Collection && len(g.parts) == []int{1, 3}[i] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("server %d did not reload the new collection within a minute", i)
			}
		}
	}
}
