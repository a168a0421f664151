package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// cliShards is the part of index --shards --json and split --json the
// test checks.
type cliShards struct {
	Documents       int    `json:"documents"`
	Collection      string `json:"collection"`
	CollectionBytes int64  `json:"collection_bytes"`
	Shards          []struct {
		Dir      string `json:"dir"`
		FirstDoc uint32 `json:"first_doc"`
		Docs     uint64 `json:"docs"`
	} `json:"shards"`
}

// TestCLIShards: index --shards and split write the same partition of the
// sample crawl; inspect describes the shards; index --update refuses a
// sharded collection and a shard with a clear error; search on a shard
// answers the collection's docids.
func TestCLIShards(t *testing.T) {
	ix, dir := openSampleIndex(t)
	root := t.TempDir()
	var built, split cliShards
	res := mustRun(t, "index", "--quiet", "--json", "--shards", "3", "--out", filepath.Join(root, "built"), sampleCrawl)
	if err := json.Unmarshal([]byte(res.stdout), &built); err != nil {
		t.Fatal(err)
	}
	res = mustRun(t, "split", "--quiet", "--json", "--shards", "3", dir, filepath.Join(root, "split"))
	if err := json.Unmarshal([]byte(res.stdout), &split); err != nil {
		t.Fatal(err)
	}
	for _, c := range []cliShards{built, split} {
		if c.Documents != ix.NumDocs() || len(c.Shards) != 3 || c.CollectionBytes == 0 || c.Collection == "" {
			t.Fatalf("summary %+v for %d documents", c, ix.NumDocs())
		}
		for j := range c.Shards {
			if c.Shards[j] != built.Shards[j] {
				t.Errorf("shard %d: %+v, index --shards wrote %+v", j, c.Shards[j], built.Shards[j])
			}
		}
	}
	res = mustRun(t, "inspect", "--index", filepath.Join(root, "split", "shard-01"))
	if !strings.Contains(res.stdout, "shard         1 of 3 of collection "+split.Collection) {
		t.Errorf("inspect of a shard:\n%s", res.stdout)
	}
	res = mustRun(t, "inspect", "--index", filepath.Join(root, "split"))
	if strings.Count(res.stdout, "collection statistics") != 3 {
		t.Errorf("inspect of a collection:\n%s", res.stdout)
	}
	var found cliSearch
	res = mustRun(t, "search", "--json", "--index", filepath.Join(root, "split", "shard-02"), "--mode", "or", "--k", "50", "http", "server")
	if err := json.Unmarshal([]byte(res.stdout), &found); err != nil {
		t.Fatal(err)
	}
	lo := split.Shards[2].FirstDoc
	for _, h := range found.Hits {
		if h.DocID < lo || uint64(h.DocID) >= uint64(lo)+split.Shards[2].Docs || h.URL != ix.URL(h.DocID) {
			t.Errorf("search on shard 2 (docids %d..): hit %d %s, the index's %s", lo, h.DocID, h.URL, ix.URL(h.DocID))
		}
	}
	if len(found.Hits) == 0 {
		t.Error("search on shard 2 found nothing")
	}
	for _, out := range []string{filepath.Join(root, "built"), filepath.Join(root, "built", "shard-00")} {
		res = runCLI(t, "index", "--update", "--out", out, sampleCrawl)
		if res.code != 1 || !strings.Contains(res.stderr, "not supported for shards yet") {
			t.Errorf("index --update --out %s: exit %d, %s", out, res.code, res.stderr)
		}
	}
}

// TestCLIGenShards: gen index --shards --json reports the shards it
// wrote and their whole size, and inspect opens the collection.
func TestCLIGenShards(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "coll")
	var got struct {
		cliShards
		Docs       int   `json:"docs"`
		IndexBytes int64 `json:"index_bytes"`
	}
	res := mustRun(t, "gen", "index", "--quiet", "--json", "--docs", "400", "--shards", "2", "--out", dir)
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Docs != 400 || got.Collection == "" || len(got.Shards) != 2 || got.Shards[1].FirstDoc != 200 || got.IndexBytes == 0 {
		t.Fatalf("gen index --shards 2 --json: %s", res.stdout)
	}
	res = mustRun(t, "inspect", "--index", dir)
	if !strings.Contains(res.stdout, "400 documents in 2 shards") {
		t.Errorf("inspect of the collection:\n%s", res.stdout)
	}
}
