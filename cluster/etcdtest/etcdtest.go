// Package etcdtest runs a private etcd server for a test: Debian's
// etcd-server package's `etcd` binary (or $GPUSEARCH_ETCD), on free
// loopback ports, with its data in the test's temporary directory.
// Without the binary the test is skipped, unless GPUSEARCH_REQUIRE_ETCD=1
// (CI sets it after installing the package), which makes it fail.
package etcdtest

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Etcd is a running single-member etcd.
type Etcd struct {
	t       testing.TB
	bin     string
	dir     string
	client  string // http://127.0.0.1:PORT
	peer    string
	logFile string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
	err    error         // cmd's exit, once exited is closed
}

// Start starts etcd and waits until it answers; it is killed when the
// test ends.
func Start(t testing.TB) *Etcd {
	t.Helper()
	bin := os.Getenv("GPUSEARCH_ETCD")
	if bin == "" {
		bin = "etcd"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		if os.Getenv("GPUSEARCH_REQUIRE_ETCD") == "1" {
			t.Fatalf("etcdtest: GPUSEARCH_REQUIRE_ETCD=1 but no etcd binary: %v (apt-get install etcd-server)", err)
		}
		t.Skipf("etcdtest: no etcd binary (%v): install Debian's etcd-server to run this test", err)
	}
	dir := t.TempDir()
	e := &Etcd{t: t, bin: path, dir: dir, client: "http://" + freeAddr(t), peer: "http://" + freeAddr(t),
		logFile: filepath.Join(dir, "etcd.log")}
	e.Restart()
	t.Cleanup(e.Kill)
	return e
}

// Endpoints are the client URLs.
func (e *Etcd) Endpoints() []string { return []string{e.client} }

// Kill stops etcd at once (SIGKILL); its data stays for Restart.
func (e *Etcd) Kill() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cmd == nil {
		return
	}
	e.cmd.Process.Signal(syscall.SIGKILL)
	<-e.exited
	e.cmd = nil
}

// Restart starts etcd again on the same ports and data (after Kill), and
// waits until it answers.
func (e *Etcd) Restart() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cmd != nil {
		e.t.Fatal("etcdtest: Restart of a running etcd")
	}
	log, err := os.OpenFile(e.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		e.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(e.bin,
		"--name", "test", "--data-dir", filepath.Join(e.dir, "data"),
		"--listen-client-urls", e.client, "--advertise-client-urls", e.client,
		"--listen-peer-urls", e.peer, "--initial-advertise-peer-urls", e.peer,
		"--initial-cluster", "test="+e.peer, "--logger", "zap", "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("etcdtest: starting %s: %v", e.bin, err)
	}
	e.cmd, e.exited = cmd, make(chan struct{})
	go func() { e.err = cmd.Wait(); close(e.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if healthy(e.client) {
			return
		}
		select {
		case <-e.exited:
			e.cmd = nil
			out, _ := os.ReadFile(e.logFile)
			e.t.Fatalf("etcdtest: etcd exited: %v\n%s", e.err, out)
		case <-time.After(50 * time.Millisecond):
		}
	}
	out, _ := os.ReadFile(e.logFile)
	e.t.Fatalf("etcdtest: etcd at %s not healthy after 20s\n%s", e.client, out)
}

// healthy reports whether etcd's /health says so.
func healthy(client string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, client+"/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
