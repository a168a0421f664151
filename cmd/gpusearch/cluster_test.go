package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/broker"
	"github.com/gpusearch/gpusearch/cluster/etcdtest"
	"github.com/gpusearch/gpusearch/config"
)

// process is a gpusearch command running in the background.
type process struct {
	t    *testing.T
	args []string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startProcess runs gpusearch args, its output appended to log; it is
// killed when the test ends.
func startProcess(t *testing.T, log string, args ...string) *process {
	t.Helper()
	p := &process{t: t, args: args, log: log}
	p.start()
	t.Cleanup(func() { p.signal(syscall.SIGKILL) })
	return p
}

func (p *process) start() {
	p.t.Helper()
	out, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	defer out.Close()
	p.cmd = cliCommand(p.t, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = out, out
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.done = make(chan struct{})
	go func() { p.cmd.Wait(); close(p.done) }()
}

// signal sends sig and waits for the process to exit.
func (p *process) signal(sig syscall.Signal) {
	p.cmd.Process.Signal(sig)
	<-p.done
}

// freePort is a loopback address whose port was free a moment ago.
func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// brokerStats reads the broker's /stats.
func brokerStats(base string) (broker.StatsResponse, error) {
	var st broker.StatsResponse
	resp, err := http.Get(base + "/stats")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// waitRouted waits until the broker routes each shard s to live[s] live
// (not down) replicas.
func waitRouted(t *testing.T, base string, live []int, logs string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := brokerStats(base); err == nil && len(st.Cluster.Shards) == len(live) {
			ok := true
			for i, s := range st.Cluster.Shards {
				n := 0
				for _, r := range s.Replicas {
					if r.Routed && !r.Down {
						n++
					}
				}
				ok = ok && n == live[i]
			}
			if ok {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, _ := brokerStats(base)
	out, _ := os.ReadFile(logs)
	t.Fatalf("after 20s the broker routes %+v, want %v live replicas\n%s", st.Cluster, live, out)
}

// TestClusterOfProcesses runs etcd, the sample crawl's index split into
// two shards, each served by two serve processes, and a broker process,
// and under load kills one replica of each shard in turn with SIGKILL
// (restarting it before the next dies): no request fails and every
// answer is the whole index's.
func TestClusterOfProcesses(t *testing.T) {
	e := etcdtest.Start(t)
	dir := t.TempDir()
	idx, coll := filepath.Join(dir, "idx"), filepath.Join(dir, "coll")
	mustRun(t, "index", "--quiet", "--out", idx, sampleCrawl)
	mustRun(t, "split", "--quiet", "--shards", "2", idx, coll)
	cfgFile := filepath.Join(dir, "cluster.yaml")
	yaml := fmt.Sprintf("server:\n  access_log: false\n  watch_interval: 0s\ncluster:\n  endpoints: [%s]\n  prefix: /proc-test\n  lease_ttl: 2s\nbroker:\n  down_for: 200ms\n  cache_entries: 0\n", e.Endpoints()[0])
	if err := os.WriteFile(cfgFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(dir, "logs")
	var nodes [][]*process // by shard, then replica
	for _, shard := range []string{"shard-00", "shard-01"} {
		var rs []*process
		for range 2 {
			rs = append(rs, startProcess(t, logs, "serve", "--config", cfgFile, "--index", filepath.Join(coll, shard), "--addr", freePort(t)))
		}
		nodes = append(nodes, rs)
	}
	baddr := freePort(t)
	b := startProcess(t, logs, "broker", "--config", cfgFile, "--addr", baddr)
	base := "http://" + baddr
	waitRouted(t, base, []int{2, 2}, logs)

	cfg := config.Default()
	cfg.Server.Index, cfg.Server.AccessLog = idx, false
	ref, err := api.New(api.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	refSrv := httptest.NewServer(ref.Handler())
	defer refSrv.Close()
	want := map[string]api.SearchResponse{}
	var paths []string
	for i, q := range []string{"parse json", "http server timeout", "read file line by line", "sort slice", "mutex lock", "json", "time"} {
		path := "/search?" + url.Values{"q": {q}, "mode": {[]string{"and", "or", "andor"}[i%3]}, "k": {strconv.Itoa(5 + i)}}.Encode()
		var r api.SearchResponse
		if err := getJSON(refSrv.URL+path, &r); err != nil {
			t.Fatal(err)
		}
		want[path] = r
		paths = append(paths, path)
	}

	var ok, failed atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path := paths[i%len(paths)]
				var got broker.SearchResponse
				err := getJSON(base+path, &got)
				if err == nil && (got.Partial || !reflect.DeepEqual(got.Hits, want[path].Hits)) {
					err = fmt.Errorf("%s: partial %v, hits %+v, want %+v", path, got.Partial, got.Hits, want[path].Hits)
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				} else {
					ok.Add(1)
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	for s, rs := range nodes {
		rs[s%2].signal(syscall.SIGKILL)
		time.Sleep(500 * time.Millisecond)
		rs[s%2].start()
		waitRouted(t, base, []int{2, 2}, logs)
	}
	close(stop)
	wg.Wait()
	if failed.Load() > 0 || ok.Load() == 0 {
		out, _ := os.ReadFile(logs)
		t.Fatalf("%d answers right, %d failed, first: %v\n%s", ok.Load(), failed.Load(), firstErr.Load(), out)
	}
	t.Logf("%d answers, none failed", ok.Load())

	// A node stopped gracefully leaves the rotation; the broker
	// stops cleanly.
	n := nodes[1][0]
	n.signal(syscall.SIGTERM)
	if n.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("serve exited %d after SIGTERM", n.cmd.ProcessState.ExitCode())
	}
	waitRouted(t, base, []int{2, 1}, logs) // it revoked its lease and left
	b.signal(syscall.SIGTERM)
	if b.cmd.ProcessState.ExitCode() != 0 {
		out, _ := os.ReadFile(logs)
		t.Errorf("broker exited %d after SIGTERM\n%s", b.cmd.ProcessState.ExitCode(), out)
	}
}

// getJSON fetches url and decodes a 200's JSON body into v.
func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s %s", url, resp.Status, body)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
