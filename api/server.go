package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Options configure a Server.
type Options struct {
	// Config supplies the server section (address, index directory,
	// limits, timeouts, cache), the search defaults and the GPU section.
	Config config.Config
	// Logger receives one line per request and the server's events; nil
	// discards them.
	Logger *slog.Logger
	// Registry receives the server's metrics and is what /metrics shows;
	// nil makes a fresh one.
	Registry *prometheus.Registry
	// Auto builds the engine=auto engine for each index; nil: the CPU.
	Auto AutoFunc
	// Loaded, if not nil, is told of the indexes the server starts
	// serving (an index, or a sharded collection's shards): the first in
	// New, then each reload's (a cluster node publishes the shards and
	// generations it serves). It must not keep them: they close once
	// replaced and unused.
	Loaded func(parts []*index.Index)
}

// Server answers the REST API over a swappable index.
type Server struct {
	cfg       config.Config
	log       *slog.Logger
	reg       *prometheus.Registry
	m         *metrics
	auto      AutoFunc
	loaded    func([]*index.Index)
	page      *SearchPage
	router    *mux.Router
	handler   http.Handler // router behind guard
	hosts     hostPolicy
	root      indexRoot
	adminHash []byte // SHA-256 of the admin token; nil: admin routes off
	started   time.Time
	cur       atomic.Pointer[generation]
	reloadMu  sync.Mutex // serialises reloads
	reloads   atomic.Int64
	hits      atomic.Int64
	misses    atomic.Int64
	analyzer  sync.Pool // *analysis.Analyzer, one per concurrent request
}

// headerSlack is how far past server.max_header_bytes net/http reads
// headers before it answers 431 itself, in plain text: up to there guard
// answers it in JSON.
const headerSlack = 1 << 20

// New opens the index in Config.Server.Index and builds the server. Close
// releases the index.
func New(opts Options) (*Server, error) {
	if err := opts.Config.Validate(); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if e := opts.Config.Search.Engine; e != "auto" {
		if _, err := query.Lookup(e); err != nil {
			return nil, fmt.Errorf("api: search.engine: %w", err)
		}
	}
	s := &Server{cfg: opts.Config, log: opts.Logger, reg: opts.Registry, auto: opts.Auto, loaded: opts.Loaded, started: time.Now()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("component", "api")
	if s.reg == nil {
		s.reg = prometheus.NewRegistry()
	}
	var err error
	entries := func() float64 { return float64(s.cur.Load().cache.Len()) }
	sched := func() usageReporter {
		r, _ := s.cur.Load().auto.(usageReporter)
		return r
	}
	device := func() deviceReporter {
		r, _ := s.cur.Load().gpu.(deviceReporter)
		return r
	}
	if s.m, err = newMetrics(s.reg, s.hitRatio, entries, sched, device); err != nil {
		return nil, fmt.Errorf("api: metrics: %w", err)
	}
	if s.page, err = NewSearchPage(); err != nil {
		return nil, err
	}
	if s.adminHash, err = adminTokenHash(s.cfg.Server); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if s.root, err = newIndexRoot(s.cfg.Server); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	s.hosts = newHostPolicy(s.cfg.Server.Addr, s.cfg.Server.Hosts)
	s.analyzer.New = func() any { return analysis.New() }
	g, err := openGeneration(s.cfg.Server.Index, s.cfg, s.auto)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	s.cur.Store(g)
	s.m.setIndex(g.meta())
	if g.gpuErr != nil {
		s.log.Info("engine gpu unavailable", "reason", g.gpuErr)
	}
	s.routes()
	if s.loaded != nil {
		s.loaded(g.parts)
	}
	return s, nil
}

func (s *Server) routes() {
	r := mux.NewRouter()
	r.Handle("/", s.instrument("page", s.handlePage)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/search", s.instrument("search", s.handleSearch)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/msearch", s.instrument("msearch", s.handleMsearch)).Methods(http.MethodPost)
	r.Handle("/documents/{docid}", s.instrument("documents", s.handleDocument)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/stats", s.instrument("stats", s.handleStats)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/healthz", s.instrument("healthz", s.handleHealthz)).Methods(http.MethodGet, http.MethodHead)
	metrics := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelError)})
	r.Handle("/metrics", s.instrument("metrics", metrics.ServeHTTP)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/admin/reload", s.instrument("reload", s.handleReload)).Methods(http.MethodPost)
	r.NotFoundHandler = s.instrument("unmatched", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, s.log, errorf(http.StatusNotFound, "no route %s", r.URL.Path))
	})
	r.MethodNotAllowedHandler = s.instrument("unmatched", func(w http.ResponseWriter, r *http.Request) {
		allow := s.allowed(r)
		w.Header().Set("Allow", allow)
		writeError(w, s.log, errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s: use %s", r.Method, r.URL.Path, allow))
	})
	s.router = r
	s.handler = s.guard(r)
}

// allowed lists the methods of the routes whose path r matches.
func (s *Server) allowed(r *http.Request) string {
	var methods []string
	s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		var m mux.RouteMatch
		if !route.Match(r, &m) && m.MatchErr == mux.ErrMethodMismatch {
			ms, _ := route.GetMethods()
			methods = append(methods, ms...)
		}
		return nil
	})
	return strings.Join(methods, ", ")
}

// Handler is the server's HTTP handler, for tests and embedding: the
// routes behind the checks every request goes through (headers, Host,
// body size) and the security headers every answer carries.
func (s *Server) Handler() http.Handler { return s.handler }

// ListenAndServe listens on Config.Server.Addr, logs the URL, and serves
// until ctx is cancelled; it then stops accepting connections and waits up
// to server.shutdown_timeout for requests in flight before closing them.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Server.Addr)
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln as ListenAndServe does, for a caller that listens
// first (a cluster node registers once it accepts connections).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	c := s.cfg.Server
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes + headerSlack,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	g := s.cur.Load()
	s.log.Info("serving", "url", "http://"+ln.Addr().String()+"/", "index", g.ix.Dir(), "docs", g.ix.NumDocs(),
		"admin_reload", s.adminHash != nil)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	watching, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go s.watch(watching, c.WatchInterval)
	select {
	case err := <-served:
		return fmt.Errorf("api: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "deadline", s.cfg.Server.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.Server.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("api: shutdown: requests still running after server.shutdown_timeout (%s): %w", s.cfg.Server.ShutdownTimeout, err)
	}
	<-served // http.ErrServerClosed
	s.log.Info("stopped")
	return nil
}

// Close drops the server's reference on the current index, which closes
// once no request uses it. The server must not serve afterwards.
func (s *Server) Close() error {
	return s.cur.Load().release()
}

// acquire returns the current generation with a reference held; the caller
// releases it with done. It fails only after Close.
func (s *Server) acquire() (*generation, error) {
	for {
		g := s.cur.Load()
		if g.tryAcquire() {
			return g, nil
		}
		if s.cur.Load() == g { // not swapped out: closed by Close
			return nil, errorf(http.StatusServiceUnavailable, "server is shutting down")
		}
		// g was swapped out and closed between Load and tryAcquire: the
		// pointer already holds its successor.
	}
}

// done releases a request's reference, logging a failure to close.
func (s *Server) done(g *generation) {
	if err := g.release(); err != nil {
		s.log.Error("closing index", "dir", g.dir, "err", err)
	}
}

// Reload opens and checks the index in dir (the configured directory when
// empty) and swaps it in. Requests in flight finish on the old index, which
// closes after the last one. On error the old index keeps serving.
func (s *Server) Reload(dir string) (ReloadResponse, error) {
	if dir == "" {
		dir = s.cfg.Server.Index
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return s.reload(dir)
}

// reload is Reload of the directory dir, with s.reloadMu held.
func (s *Server) reload(dir string) (ReloadResponse, error) {
	start := time.Now()
	g, err := openGeneration(dir, s.cfg, s.auto)
	if err != nil {
		s.m.reloads.WithLabelValues("refused").Inc()
		s.log.Warn("reload refused", "dir", dir, "err", err)
		return ReloadResponse{}, fmt.Errorf("api: reload %s: %w", dir, err)
	}
	old := s.cur.Swap(g)
	s.m.setIndex(g.meta())
	s.m.reloads.WithLabelValues("ok").Inc()
	s.reloads.Add(1)
	s.done(old)
	if s.loaded != nil {
		s.loaded(g.parts)
	}
	resp := ReloadResponse{Index: s.root.show(dir), Previous: s.root.show(old.dir), Docs: g.meta().Docs,
		TookMS: time.Since(start).Milliseconds()}
	s.log.Info("reloaded", "dir", dir, "previous", old.dir, "docs", resp.Docs, "took_ms", resp.TookMS)
	return resp, nil
}

// hitRatio is the result cache's hits over lookups, 0 before the first.
func (s *Server) hitRatio() float64 {
	h, m := s.hits.Load(), s.misses.Load()
	if h+m == 0 {
		return 0
	}
	return float64(h) / float64(h+m)
}

// writeJSON answers v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only the types of this package are written: a bug
		panic(errors.Join(errors.New("api: encoding a response"), err))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
