package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/cluster"
	"github.com/gpusearch/gpusearch/cluster/etcdtest"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/indexer"
)

func member(shard int, node string, gen int64) cluster.Member {
	return cluster.Member{Collection: "c", Shard: shard, Shards: 2, Generation: gen, URL: "http://127.0.0.1:1", Node: node}
}

// waitFor polls the watcher until want holds of its snapshot.
func waitFor(t *testing.T, w *cluster.Watcher, what string, want func(cluster.Snapshot) bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if want(w.Snapshot()) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("after 15s, not %s: %+v", what, w.Snapshot())
}

func nodes(s cluster.Snapshot) []string {
	var out []string
	for _, m := range s.Members {
		out = append(out, m.Node)
	}
	return out
}

func TestRegistrarAndWatcher(t *testing.T) {
	e := etcdtest.Start(t)
	dial := func() *clientv3.Client {
		cli, err := cluster.Dial(cluster.Config{Endpoints: e.Endpoints()})
		if err != nil {
			t.Fatal(err)
		}
		return cli
	}
	wc := dial()
	defer wc.Close()
	w := cluster.Watch(wc, "/t", nil, nil)
	defer w.Close()

	// Two nodes register; the watcher sees both.
	opts := cluster.RegistrarOptions{Prefix: "/t", LeaseTTL: 2 * time.Second}
	ac, bc := dial(), dial()
	defer ac.Close()
	a, err := cluster.NewRegistrar(ac, opts, []cluster.Member{member(0, "a", 1)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cluster.NewRegistrar(bc, opts, []cluster.Member{member(1, "b", 1)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "a and b", func(s cluster.Snapshot) bool { return slices.Equal(nodes(s), []string{"a", "b"}) })

	// Garbled registrations are skipped.
	for i, v := range []string{"{not json", `{"shard": 0, "shards": 2000000000, "url": "http://h:1", "node": "x"}`, `{"shards": 1, "url": "ftp://h", "node": "y"}`} {
		if _, err := wc.Put(context.Background(), fmt.Sprintf("/t/members/c/0/bad%d", i), v); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, w, "past the garbled keys", func(s cluster.Snapshot) bool { return s.Revision >= 6 })
	if got := nodes(w.Snapshot()); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after garbled registrations the membership is %v, want a and b", got)
	}

	// A reload publishes the new generation.
	if err := a.Set([]cluster.Member{member(0, "a", 2)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "a at generation 2", func(s cluster.Snapshot) bool { return s.Members[0].Generation == 2 })

	// etcd goes away: the watcher keeps what it saw; back, it follows again.
	e.Kill()
	waitFor(t, w, "saying etcd is silent", func(s cluster.Snapshot) bool { return s.Err != "" })
	if got := nodes(w.Snapshot()); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("during the outage the membership is %v, want a and b", got)
	}
	e.Restart()
	if err := a.Set([]cluster.Member{member(0, "a", 3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "a at generation 3 after the outage", func(s cluster.Snapshot) bool {
		return len(s.Members) == 2 && s.Members[0].Generation == 3 && s.Err == ""
	})

	// b's process dies (its client closes without revoking): its lease
	// expires and it leaves.
	bc.Close()
	waitFor(t, w, "b gone after its lease expired", func(s cluster.Snapshot) bool { return slices.Equal(nodes(s), []string{"a"}) })
	b.Close(100 * time.Millisecond) // its client is closed: stops retrying

	// a shuts down gracefully: its key goes at once.
	if err := a.Close(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "empty after a's shutdown", func(s cluster.Snapshot) bool { return len(s.Members) == 0 })
}

func TestMemberValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    cluster.Member
		ok   bool
	}{
		{"ok", member(1, "n", 3), true},
		{"shard past count", cluster.Member{Shard: 2, Shards: 2, URL: "http://h:1", Node: "n"}, false},
		{"no shards", cluster.Member{URL: "http://h:1", Node: "n"}, false},
		{"too many shards", cluster.Member{Shards: cluster.MaxShards + 1, URL: "http://h:1", Node: "n"}, false},
		{"no node", cluster.Member{Shards: 1, URL: "http://h:1"}, false},
		{"bad url", cluster.Member{Shards: 1, URL: "h:1", Node: "n"}, false},
		{"negative generation", cluster.Member{Shards: 1, URL: "http://h:1", Node: "n", Generation: -1}, false},
	} {
		if err := tc.m.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", tc.name, err)
		}
	}
}

func TestParseGeneration(t *testing.T) {
	for in, want := range map[string]int64{"gen-1": 1, "gen-42": 42, "gen-": 0, "seg-3": 0, "": 0, "gen--2": 0} {
		if got := cluster.ParseGeneration(in); got != want {
			t.Errorf("ParseGeneration(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestNodePublishesReloads: a node registers the index it serves, and
// the new generation after a reload; Close deregisters it at once.
func TestNodePublishesReloads(t *testing.T) {
	e := etcdtest.Start(t)
	root := t.TempDir()
	crawl, dir := filepath.Join(root, "crawl"), filepath.Join(root, "idx")
	if err := os.MkdirAll(crawl, 0o755); err != nil {
		t.Fatal(err)
	}
	build := func(text string) {
		if err := os.WriteFile(filepath.Join(crawl, "a.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := indexer.Build(context.Background(), crawl, dir, indexer.Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
	}
	build("alpha bravo")
	cfg := config.Default()
	cfg.Server.Index, cfg.Server.Addr, cfg.Server.AccessLog = dir, "127.0.0.1:18999", false
	cfg.Cluster.Endpoints, cfg.Cluster.Prefix, cfg.Cluster.LeaseTTL = e.Endpoints(), "/node-test", 2*time.Second
	node, err := cluster.NewNode(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	srv, err := api.New(api.Options{Config: cfg, Loaded: node.Loaded})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	cli, err := cluster.Dial(cluster.Config{Endpoints: e.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	w := cluster.Watch(cli, "/node-test", nil, nil)
	defer w.Close()
	want := cluster.Member{Shards: 1, Generation: 1, URL: "http://127.0.0.1:18999", Node: "127.0.0.1:18999", Docs: 1}
	waitFor(t, w, "the node at generation 1", func(s cluster.Snapshot) bool { return len(s.Members) == 1 && s.Members[0] == want })

	build("alpha charlie") // the next commit: gen-2
	if _, err := srv.Reload(""); err != nil {
		t.Fatal(err)
	}
	want.Generation = 2
	waitFor(t, w, "the node at generation 2", func(s cluster.Snapshot) bool { return len(s.Members) == 1 && s.Members[0] == want })

	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "no member after Close", func(s cluster.Snapshot) bool { return len(s.Members) == 0 })
}

func TestNewNodeNeedsAReachableURL(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:8080", ":8080"} {
		cfg := config.Default()
		cfg.Server.Addr, cfg.Cluster.Endpoints = addr, []string{"http://127.0.0.1:1"}
		if _, err := cluster.NewNode(cfg, nil); err == nil || !strings.Contains(err.Error(), "advertise_url") {
			t.Errorf("server.addr %s: err %v, want one asking for cluster.advertise_url", addr, err)
		}
	}
}
