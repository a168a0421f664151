package broker_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/broker"
	"github.com/gpusearch/gpusearch/cluster"
	"github.com/gpusearch/gpusearch/cluster/etcdtest"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// The sample crawl's index and its shards, built once by TestMain.
var (
	wholeIndex string      // the single index the cluster must equal
	shardDirs  []string    // its shards, in shard order
	shardDocs  [][2]uint32 // each shard's collection docids: first, last+1
)

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "broker-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err = buildIndexes(root); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(root)
	os.Exit(code)
}

// testShards is how many shards the test collection has.
const testShards = 3

// buildIndexes indexes the sample crawl into root/whole and splits it
// into testShards shards under root/shards.
func buildIndexes(root string) error {
	var err error
	wholeIndex, shardDirs, shardDocs, err = indexAndSplit("../examples/crawl", root, testShards)
	return err
}

// indexAndSplit indexes the crawl under dir into root/whole and splits it
// into n shards under root/shards; it returns the whole index, the
// shards in shard order, and each shard's collection docids (first,
// last+1).
func indexAndSplit(dir, root string, n int) (string, []string, [][2]uint32, error) {
	whole := filepath.Join(root, "whole")
	opts := indexer.Options{Workers: 2, Positions: true}
	if _, err := indexer.Build(context.Background(), dir, whole, opts); err != nil {
		return "", nil, nil, fmt.Errorf("indexer.Build: %w", err)
	}
	rep, err := indexer.Split(context.Background(), whole, filepath.Join(root, "shards"), n, opts)
	if err != nil {
		return "", nil, nil, fmt.Errorf("indexer.Split: %w", err)
	}
	var dirs []string
	var docs [][2]uint32
	for _, s := range rep.Manifest.Shards {
		dirs = append(dirs, filepath.Join(root, "shards", s.Dir))
		docs = append(docs, [2]uint32{s.FirstDoc, s.FirstDoc + uint32(s.Docs)})
	}
	return whole, dirs, docs, nil
}

// sampleQueries are examples/queries.txt's queries.
func sampleQueries(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../examples/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if _, text, ok := strings.Cut(line, "\t"); ok {
			line = text
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil || len(out) < 100 {
		t.Fatalf("read %d queries from examples/queries.txt (%v), want 200", len(out), err)
	}
	return out
}

// nodeConfig is a node's configuration for index dir.
func nodeConfig(dir string) config.Config {
	c := config.Default()
	c.Server.Index, c.Server.Addr, c.Server.AccessLog, c.Server.WatchInterval = dir, "127.0.0.1:0", false, 0
	return c
}

// node is an in-process index node on a loopback port of its own: its
// api.Server on an httptest server, and its registration. kill closes its
// listener and connections at once and drops its etcd client without
// revoking the lease, as kill -9 of a process would; start brings it
// back on the same address.
type node struct {
	t        *testing.T
	cfg      config.Config
	member   cluster.Member
	etcd     []string
	addr     string
	api      *api.Server
	srv      *httptest.Server
	cli      *clientv3.Client
	reg      *cluster.Registrar
	stopOnce sync.Once
}

// startNode serves dir as member's shard replica and registers it.
func startNode(t *testing.T, etcd []string, dir, id string) *node {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := ix.Shard()
	gen, docs := cluster.ParseGeneration(ix.Meta().Generation), uint64(ix.NumDocs())
	ix.Close()
	n := &node{t: t, cfg: nodeConfig(dir), etcd: etcd, addr: "127.0.0.1:0",
		member: cluster.Member{Collection: info.Collection, Shard: info.Index, Shards: info.Count, Generation: gen, Node: id,
			FirstDoc: info.FirstDoc, Docs: docs}}
	n.start()
	t.Cleanup(n.kill)
	return n
}

// start serves and registers the node (again, after kill).
func (n *node) start() {
	n.t.Helper()
	var err error
	if n.api, err = api.New(api.Options{Config: n.cfg}); err != nil {
		n.t.Fatal(err)
	}
	ln, err := net.Listen("tcp", n.addr)
	if err != nil {
		n.t.Fatal(err)
	}
	n.addr = ln.Addr().String()
	n.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: n.api.Handler()}}
	n.srv.Start()
	n.member.URL = n.srv.URL
	if n.cli, err = cluster.Dial(cluster.Config{Endpoints: n.etcd}); err != nil {
		n.t.Fatal(err)
	}
	if n.reg, err = cluster.NewRegistrar(n.cli, cluster.RegistrarOptions{Prefix: "/test", LeaseTTL: 2 * time.Second}, []cluster.Member{n.member}); err != nil {
		n.t.Fatal(err)
	}
	n.stopOnce = sync.Once{}
}

// kill stops the node abruptly: connections cut, lease left to expire.
func (n *node) kill() {
	n.stopOnce.Do(func() {
		n.srv.Listener.Close()
		n.srv.CloseClientConnections()
		n.cli.Close() // no revoke: the registration stays until the lease expires
		n.reg.Close(time.Millisecond)
		n.srv.Close()
		n.api.Close()
	})
}

// testBroker is a broker on an httptest server following etcd.
type testBroker struct {
	b   *broker.Broker
	srv *httptest.Server
	w   *cluster.Watcher
}

// startBroker starts a broker watching etcd, with a result cache of
// cache entries, and waits until every shard has replicas routed.
func startBroker(t *testing.T, etcd []string, shards, replicas, cache int) *testBroker {
	t.Helper()
	c := config.Default()
	c.Broker.DownFor, c.Broker.CacheEntries = 200*time.Millisecond, cache
	b, err := broker.New(broker.Options{Config: c})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := cluster.Dial(cluster.Config{Endpoints: etcd})
	if err != nil {
		t.Fatal(err)
	}
	tb := &testBroker{b: b, srv: httptest.NewServer(b.Handler())}
	tb.w = cluster.Watch(cli, "/test", nil, b.Update)
	t.Cleanup(func() { tb.srv.Close(); tb.w.Close(); cli.Close(); b.Close() })
	tb.waitReplicas(t, shards, replicas)
	return tb
}

// waitReplicas waits until the broker routes every shard to replicas
// replicas.
func (tb *testBroker) waitReplicas(t *testing.T, shards, replicas int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st := tb.b.Stats()
		ok := len(st.Cluster.Shards) == shards
		for _, s := range st.Cluster.Shards {
			routed := 0
			for _, r := range s.Replicas {
				if r.Routed {
					routed++
				}
			}
			ok = ok && routed == replicas
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 15s the broker routes %+v, want %d shards of %d replicas", st.Cluster, shards, replicas)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testCluster is the test cluster: real etcd, every shard served by
// replicas in-process nodes, and a broker (cache entries in its result
// cache).
type testCluster struct {
	etcd   *etcdtest.Etcd
	nodes  [][]*node // by shard, then replica
	broker *testBroker
	ref    *httptest.Server // the single index, served alone
}

func startCluster(t *testing.T, replicas, cache int) *testCluster {
	t.Helper()
	return startClusterOf(t, wholeIndex, shardDirs, replicas, cache)
}

// startClusterOf starts a test cluster over the shards dirs of the
// index whole.
func startClusterOf(t *testing.T, whole string, dirs []string, replicas, cache int) *testCluster {
	t.Helper()
	c := &testCluster{etcd: etcdtest.Start(t)}
	for s, dir := range dirs {
		var rs []*node
		for r := range replicas {
			rs = append(rs, startNode(t, c.etcd.Endpoints(), dir, fmt.Sprintf("s%d-r%d", s, r)))
		}
		c.nodes = append(c.nodes, rs)
	}
	ref, err := api.New(api.Options{Config: nodeConfig(whole)})
	if err != nil {
		t.Fatal(err)
	}
	c.ref = httptest.NewServer(ref.Handler())
	t.Cleanup(func() { c.ref.Close(); ref.Close() })
	c.broker = startBroker(t, c.etcd.Endpoints(), len(dirs), replicas, cache)
	return c
}

// get fetches base+path and decodes a 200's JSON into v; it returns the
// status and, for another status, the body.
func get(base, path string, v any) (int, string, error) {
	resp, err := http.Get(base + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, string(body), nil
	}
	return resp.StatusCode, "", json.Unmarshal(body, v)
}

// searchPath is /search's path for a query.
func searchPath(q, mode string, k int) string {
	return "/search?" + url.Values{"q": {q}, "mode": {mode}, "k": {fmt.Sprint(k)}}.Encode()
}

// decodeJSON decodes a response's body.
func decodeJSON(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }

// pageGet fetches url: its status, body and headers.
func pageGet(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}
