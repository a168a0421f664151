package cluster_test

import (
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/gpusearch/gpusearch/cluster"
	"github.com/gpusearch/gpusearch/cluster/etcdtest"
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

	// A reload publishes the new generation.
	if err := a.Set([]cluster.Member{member(0, "a", 2)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "a at generation 2", func(s cluster.Snapshot) bool { return s.Members[0].Generation == 2 })

	// etcd goes away: the watcher keeps what it saw; back, it follows again.
	e.Kill()
	time.Sleep(300 * time.Millisecond)
	if got := nodes(w.Snapshot()); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("during the outage the membership is %v, want a and b", got)
	}
	e.Restart()
	if err := a.Set([]cluster.Member{member(0, "a", 3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "a at generation 3 after the outage", func(s cluster.Snapshot) bool {
		return len(s.Members) == 2 && s.Members[0].Generation == 3
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
