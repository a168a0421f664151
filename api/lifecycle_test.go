package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var urlLine = regexp.MustCompile(`url=(http://\S+/)`)

// serve runs ListenAndServe on a free loopback port and returns its base
// URL (read from the log line that names it) and the channel its result
// arrives on.
func serve(t *testing.T, ctx context.Context, s *Server, log *syncBuffer) (string, <-chan error) {
	t.Helper()
	result := make(chan error, 1)
	go func() { result <- s.ListenAndServe(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := urlLine.FindStringSubmatch(log.String()); m != nil {
			return strings.TrimSuffix(m[1], "/"), result
		}
	}
	t.Fatalf("no url= line in the log: %s", log.String())
	return "", nil
}

// TestShutdown cancels the server's context while a request is in flight:
// the server stops accepting, the request finishes, and ListenAndServe
// returns nil.
func TestShutdown(t *testing.T) {
	gate, started := make(chan struct{}), make(chan struct{}, 1)
	log := &syncBuffer{}
	s, err := New(Options{Config: testConfig(indexA), Logger: slog.New(slog.NewTextHandler(log, nil)), Auto: gated(gate, started)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, result := serve(t, ctx, s, log)

	type answer struct {
		status int
		body   string
		err    error
	}
	inflight := make(chan answer, 1)
	go func() {
		st, body, err := fetch(http.DefaultClient, "GET", base+"/search?q=alpha&engine=auto", "")
		inflight <- answer{st, body, err}
	}()
	<-started
	cancel()
	// The listener closes: new connections are refused.
	addr := strings.TrimPrefix(base, "http://")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections 5s after its context was cancelled")
		}
	}
	close(gate)
	a := <-inflight
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, `"hits":[{`) {
		t.Errorf("in-flight request during shutdown = %d %s (%v), want 200 with hits", a.status, a.body, a.err)
	}
	if err := <-result; err != nil {
		t.Errorf("ListenAndServe = %v, want nil after a clean shutdown", err)
	}
}

// TestShutdownDeadline holds a request past server.shutdown_timeout:
// ListenAndServe gives up on it and says so.
func TestShutdownDeadline(t *testing.T) {
	gate, started := make(chan struct{}), make(chan struct{}, 1)
	defer close(gate)
	cfg := testConfig(indexA)
	cfg.Server.ShutdownTimeout = 50 * time.Millisecond
	log := &syncBuffer{}
	s, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(log, nil)), Auto: gated(gate, started)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	base, result := serve(t, ctx, s, log)
	failed := make(chan error, 1)
	go func() {
		_, _, err := fetch(http.DefaultClient, "GET", base+"/search?q=alpha&engine=auto", "")
		failed <- err
	}()
	<-started
	cancel()
	if err := <-result; err == nil || !strings.Contains(err.Error(), "shutdown_timeout") {
		t.Errorf("ListenAndServe = %v, want an error naming shutdown_timeout", err)
	}
	if err := <-failed; err == nil {
		t.Errorf("request cut off by the shutdown deadline succeeded, want a connection error")
	}
}

// TestListenError checks that a bad address is reported, not served.
func TestListenError(t *testing.T) {
	cfg := testConfig(indexA)
	cfg.Server.Addr = "127.0.0.1:99999"
	s, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.ListenAndServe(context.Background()); err == nil {
		t.Errorf("ListenAndServe on %s = nil, want an error", cfg.Server.Addr)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no index", func(o *Options) { o.Config.Server.Index = t.TempDir() }, "meta.json"},
		{"invalid config", func(o *Options) { o.Config.Search.Mode = "xor" }, "search.mode"},
		{"registry twice", func(o *Options) {
			o.Registry = prometheus.NewRegistry()
			if _, err := New(*o); err != nil {
				t.Fatal(err)
			}
		}, "metrics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Config: testConfig(indexA)}
			tt.edit(&o)
			if _, err := New(o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestClosed checks that a closed server answers 503 instead of using a
// closed index.
func TestClosed(t *testing.T) {
	s, err := New(Options{Config: testConfig(indexA)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/search?q=alpha", "/documents/1", "/stats"} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 503 || !strings.Contains(rec.Body.String(), "shutting down") {
			t.Errorf("GET %s after Close = %d %s, want 503 shutting down", target, rec.Code, rec.Body)
		}
	}
}

// TestRequestLog checks the one log line per request.
func TestRequestLog(t *testing.T) {
	log := &syncBuffer{}
	s, err := New(Options{Config: testConfig(indexA), Logger: slog.New(slog.NewJSONHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	requests := []struct {
		target string
		route  string
		status int
	}{
		{"/search?q=alpha+secret", "search", 200},
		{"/documents/999", "documents", 404},
		{"/nowhere", "unmatched", 404},
		{"/?q=alpha", "page", 200},
	}
	for _, r := range requests {
		s.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", r.target, nil))
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "request" {
			lines = append(lines, m)
		}
	}
	if len(lines) != len(requests) {
		t.Fatalf("%d request log lines, want %d:\n%s", len(lines), len(requests), log.String())
	}
	for i, r := range requests {
		l := lines[i]
		if l["route"] != r.route || l["status"] != float64(r.status) || l["component"] != "api" || l["method"] != "GET" {
			t.Errorf("log line %d = %v, want route %s, status %d, component api, method GET", i, l, r.route, r.status)
		}
		if _, ok := l["duration_us"]; !ok {
			t.Errorf("log line %d = %v, want a duration_us", i, l)
		}
	}
	if strings.Contains(log.String(), "secret") {
		t.Errorf("the log holds query text: %s", log.String())
	}
}

// TestAccessLogOff: with server.access_log off, requests log nothing.
func TestAccessLogOff(t *testing.T) {
	log := &syncBuffer{}
	cfg := testConfig(indexA)
	cfg.Server.AccessLog = false
	s, err := New(Options{Config: cfg, Logger: slog.New(slog.NewJSONHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, target := range []string{"/search?q=alpha", "/documents/999"} {
		s.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil))
	}
	if strings.Contains(log.String(), `"msg":"request"`) {
		t.Errorf("access log off, yet requests were logged:\n%s", log.String())
	}
}

// TestMetrics checks the series /metrics exposes, from the registry passed
// in.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, err := New(Options{Config: testConfig(indexA), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, target := range []string{"/search?q=alpha&mode=or", "/search?q=alpha&mode=or&engine=bitmap", "/search?k=0&q=a", "/documents/1"} {
		s.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil))
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	g, _ := s.acquire()
	meta := g.ix.Meta()
	s.done(g)
	for _, want := range []string{
		`gpusearch_http_requests_total{code="200",route="search"} 2`,
		`gpusearch_http_requests_total{code="400",route="search"} 1`,
		`gpusearch_http_requests_total{code="200",route="documents"} 1`,
		`gpusearch_http_request_duration_seconds_count{route="search"} 3`,
		`gpusearch_search_duration_seconds_count{engine="cpu",mode="or"} 1`,
		`gpusearch_search_duration_seconds_count{engine="bitmap",mode="or"} 1`,
		`gpusearch_cache_requests_total{result="miss"} 2`,
		`gpusearch_index_documents 150`,
		`gpusearch_index_terms ` + itoa(int(meta.Terms)),
		`gpusearch_index_postings ` + itoa(int(meta.Postings)),
		`gpusearch_index_bytes ` + itoa(int(meta.Bytes())),
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	mfs, err := reg.Gather()
	if err != nil || len(mfs) == 0 {
		t.Errorf("the registry passed in gathers %d families (%v), want the server's", len(mfs), err)
	}
}

// TestStatusOf checks the one error-to-status mapping.
func TestStatusOf(t *testing.T) {
	tests := []struct {
		err    error
		status int
		msg    string
	}{
		{badParam("k=%d", 0), 400, "k=0"},
		{errorf(404, "no document"), 404, "no document"},
		{&http.MaxBytesError{Limit: 9}, 413, "max_body_bytes=9"},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), 408, "read_timeout"},
		{fmt.Errorf("device 0: %w", query.ErrNoGPU), 503, "engine gpu unavailable: device 0"},
		{errors.New("disk on fire"), 500, "internal error"},
	}
	for _, tt := range tests {
		status, msg := statusOf(tt.err)
		if status != tt.status || !strings.Contains(msg, tt.msg) {
			t.Errorf("statusOf(%v) = %d %q, want %d with %q", tt.err, status, msg, tt.status, tt.msg)
		}
	}
}

// TestPanic checks that a panicking handler answers a logged 500.
func TestPanic(t *testing.T) {
	log := &syncBuffer{}
	s, err := New(Options{Config: testConfig(indexA), Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.instrument("boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"error":"internal error"`) {
		t.Errorf("panicking handler = %d %s, want 500 internal error", rec.Code, rec.Body)
	}
	if !strings.Contains(log.String(), "panic: boom") || !strings.Contains(log.String(), "status=500") {
		t.Errorf("log = %s, want the panic and a status=500 request line", log)
	}
}

// TestSchedulerMetrics: with engine=auto served by the CPU/GPU scheduler,
// /metrics reports where its queries ran and how its workers spent their
// time; without one, no scheduler series appear.
func TestSchedulerMetrics(t *testing.T) {
	auto := func(ix *index.Index, cpu query.Engine, _ []query.Engine) query.Engine {
		s, err := schedule.New(ix, schedule.Config{Policy: schedule.PolicyCPU, CPU: cpu, CPUWorkers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	for _, tt := range []struct {
		name string
		auto AutoFunc
		want []string
	}{
		{"scheduler", auto, []string{
			`gpusearch_scheduler_queries_total{processor="cpu"} 2`,
			`gpusearch_scheduler_queries_total{processor="gpu"} 0`,
			`gpusearch_scheduler_engine_calls_total{processor="cpu"} 2`,
			`gpusearch_scheduler_worker_seconds_total{processor="cpu",state="busy"} `,
			`gpusearch_scheduler_worker_seconds_total{processor="cpu",state="lock_wait"} `,
			`gpusearch_scheduler_worker_seconds_total{processor="cpu",state="idle"} `,
		}},
		{"cpu", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Options{Config: testConfig(indexA), Auto: tt.auto})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, target := range []string{"/search?q=alpha&mode=or&engine=auto", "/search?q=beta&mode=and&engine=auto"} {
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
				if rec.Code != 200 {
					t.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
				}
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			body := rec.Body.String()
			for _, want := range tt.want {
				if !strings.Contains(body, want) {
					t.Errorf("/metrics lacks %q", want)
				}
			}
			if tt.want == nil && strings.Contains(body, "gpusearch_scheduler_") {
				t.Errorf("/metrics has scheduler series without a scheduler")
			}
		})
	}
}
