package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/api"
)

// TestServeEndToEnd builds the binary, indexes the sample crawl, starts
// `serve` on a free loopback port, and checks that its answers over HTTP
// equal `search --json`'s for queries of examples/queries.txt; then runs
// `bench http` against it briefly and stops it with SIGTERM.
func TestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and indexes the sample crawl")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gpusearch")
	run(t, "go", "build", "-o", bin, ".")
	idx := filepath.Join(dir, "index")
	run(t, bin, "index", "--quiet", "--codec", "varint-SU", "--out", idx, "../../examples/crawl")
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("server:\n  cache_entries: 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	srv := exec.Command(bin, "serve", "--config", cfg, "--index", idx, "--addr", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	logs := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default: // the test reads only the first lines and the last
			}
		}
		close(logs)
	}()
	base := ""
	for line := range logs {
		if m := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)/`).FindStringSubmatch(line); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatal("serve exited without logging the URL it listens on")
	}

	queries, err := readBenchHTTPQueries("../../examples/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries[:8] {
		for _, mode := range []string{"andor", "and", "or"} {
			t.Run(mode+"/"+q, func(t *testing.T) {
				var cli api.SearchResponse
				out := run(t, bin, "search", "--index", idx, "--json", "--mode", mode, "--k", "10", "--engine", "cpu", "--", q)
				if err := json.Unmarshal(out, &cli); err != nil {
					t.Fatal(err)
				}
				var web api.SearchResponse
				u := base + "/search?" + url.Values{"q": {q}, "mode": {mode}, "k": {"10"}, "engine": {"cpu"}}.Encode()
				getJSONURL(t, u, &web)
				if fmt.Sprint(web.Hits) != fmt.Sprint(cli.Hits) {
					t.Errorf("GET %s hits = %v\nsearch --json hits = %v", u, web.Hits, cli.Hits)
				}
				if web.Query != q || web.Mode != mode || web.Engine != "cpu" {
					t.Errorf("GET %s = query %q mode %q engine %q, want %q %q cpu", u, web.Query, web.Mode, web.Engine, q, mode)
				}
				if len(web.Hits) > 0 {
					var doc api.DocumentResponse
					getJSONURL(t, fmt.Sprintf("%s/documents/%d", base, web.Hits[0].DocID), &doc)
					if doc.URL != web.Hits[0].URL {
						t.Errorf("/documents/%d url = %q, want %q", web.Hits[0].DocID, doc.URL, web.Hits[0].URL)
					}
				}
			})
		}
	}

	resp, err := testClient.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("GET /healthz = %d %q, want 200 \"ok\"", resp.StatusCode, body)
	}

	// bench http, bounded by count.
	out := run(t, bin, "bench", "http", "--addr", strings.TrimPrefix(base, "http://"), "--queries", "../../examples/queries.txt",
		"--concurrency", "1,3", "--duration", "0", "--warmup", "0", "--max-requests", "40", "--index", idx, "--json")
	var rep httpBenchReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("bench http --json: %v\n%s", err, out)
	}
	if len(rep.Runs) != 2 || rep.InProcess == nil || rep.InProcess.Requests != 40 {
		t.Fatalf("bench http report = %s, want 2 runs and 40 in-process queries", out)
	}
	for _, r := range rep.Runs {
		if r.Requests != 40 || r.Errors != 0 || r.P50US <= 0 || r.P99US < r.P50US {
			t.Errorf("bench http run %+v, want 40 requests, no errors, 0 < p50 <= p99", r)
		}
	}

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		for range logs { // drain, so that serve never blocks on stderr
		}
		exited <- srv.Wait()
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v, want exit status 0", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve still running 15s after SIGTERM")
	}
}

// testClient bounds every request of these tests.
var testClient = &http.Client{Timeout: 30 * time.Second}

// run runs a command to completion within a minute and returns its
// stdout; a failure or a hang fails the test with its stderr.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v (ctx: %v)\n%s", name, args, err, ctx.Err(), stderr.String())
	}
	return stdout.Bytes()
}

func getJSONURL(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := testClient.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", u, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
