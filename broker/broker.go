// Package broker answers gpusearch's search API over a cluster of index
// nodes: it follows the membership (package cluster), sends each query
// to one replica of every shard (the one with the fewest requests
// outstanding), retries another replica when one fails, hedges a request
// slower than its shard's running p95, merges the shards' top k exactly,
// caches answers, and flags an answer partial when a shard has no replica
// left. Nodes are asked over their own REST API (/search, /msearch):
// HTTP/JSON on keep-alive connections. GET / is a node's search page
// (api.SearchPage) over the broker's own merged answers.
package broker

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/cluster"
	"github.com/gpusearch/gpusearch/config"
)

// Options configure a Broker.
type Options struct {
	// Config supplies the broker section, and server.*'s limits and
	// timeouts and search.k, which the broker applies as a node would.
	Config config.Config
	// Logger receives the broker's events; nil discards them.
	Logger *slog.Logger
	// Registry receives the broker's metrics, shown by /metrics; nil
	// makes a fresh one.
	Registry *prometheus.Registry
}

// Broker answers the search API by scattering queries to the shards of
// the membership it is given (Update) and merging their answers.
type Broker struct {
	cfg     config.Broker
	full    config.Config
	log     *slog.Logger
	reg     *prometheus.Registry
	m       *metrics
	client  *http.Client
	cache   *answerCache
	started time.Time
	handler http.Handler
	page    *api.SearchPage

	table    atomic.Pointer[table]
	snap     atomic.Pointer[cluster.Snapshot]
	mu       sync.Mutex // guards replicas and states, serialises Update
	replicas map[cluster.Member]*replica
	states   map[int]*shardState

	requests atomic.Int64
	partial  atomic.Int64
	overhead *window // the time each answer took beyond its slowest shard's
}

// New makes a broker without members: it answers 503 until Update gives
// it some.
func New(opts Options) (*Broker, error) {
	if err := opts.Config.Validate(); err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	b := &Broker{cfg: opts.Config.Broker, full: opts.Config, log: opts.Logger, reg: opts.Registry,
		cache: newAnswerCache(opts.Config.Broker.CacheEntries), started: time.Now(),
		replicas: map[cluster.Member]*replica{}, states: map[int]*shardState{}, overhead: newWindow()}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.log = b.log.With("component", "broker")
	if b.reg == nil {
		b.reg = prometheus.NewRegistry()
	}
	var err error
	if b.m, err = newMetrics(b.reg, b); err != nil {
		return nil, fmt.Errorf("broker: metrics: %w", err)
	}
	b.client = &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: b.cfg.ShardTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0, // no limit over all replicas
		MaxIdleConnsPerHost: b.cfg.MaxConnsPerReplica,
		MaxConnsPerHost:     b.cfg.MaxConnsPerReplica,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // loopback and LAN: gzip would cost more than it saves
	}}
	if b.page, err = api.NewSearchPage(); err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	b.table.Store(&table{consistent: true})
	b.snap.Store(&cluster.Snapshot{})
	b.handler = b.routes()
	return b, nil
}

// Update routes queries by a new membership snapshot; the watcher calls
// it on every change (cluster.Watch's onChange).
func (b *Broker) Update(s cluster.Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.snap.Store(&s)
	old := b.table.Load()
	keep := map[cluster.Member]*replica{}
	replicaOf := func(m cluster.Member) *replica {
		r := b.replicas[m]
		if r == nil {
			r = &replica{m: m, lat: newWindow(), pm: b.m.forReplica(m.Shard, m.Node)}
		}
		keep[m] = r
		return r
	}
	stateOf := func(i int) *shardState {
		st := b.states[i]
		if st == nil {
			st = &shardState{lat: newWindow(), batchLat: newWindow()}
			b.states[i] = st
		}
		return st
	}
	t := route(s.Members, b.cfg.Collection, replicaOf, stateOf)
	b.replicas = keep
	b.table.Store(t)
	for _, sh := range t.shards {
		b.m.replicas.WithLabelValues(sh.label()).Set(float64(len(sh.replicas)))
	}
	if t.gens != old.gens || !slices.Equal(t.missing(), old.missing()) || t.consistent != old.consistent {
		b.log.Info("routing", "collection", t.collection, "shards", len(t.shards), "missing", t.missing(),
			"consistent", t.consistent, "members", len(s.Members))
	}
}

// Handler is the broker's HTTP handler.
func (b *Broker) Handler() http.Handler { return b.handler }

func (b *Broker) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", b.instrument("page", b.handlePage))
	mux.Handle("GET /search", b.instrument("search", b.handleSearch))
	mux.Handle("POST /msearch", b.instrument("msearch", b.handleMsearch))
	mux.Handle("GET /documents/{docid}", b.instrument("documents", b.handleDocument))
	mux.Handle("GET /healthz", b.instrument("healthz", b.handleHealthz))
	mux.Handle("GET /stats", b.instrument("stats", b.handleStats))
	mux.Handle("GET /metrics", b.instrument("metrics", b.handleMetrics()))
	mux.Handle("/", b.instrument("unmatched", func(w http.ResponseWriter, r *http.Request) {
		b.writeError(w, errorf(http.StatusNotFound, "no route %s %s on the broker", r.Method, r.URL.Path))
	}))
	return http.MaxBytesHandler(mux, b.full.Server.MaxBodyBytes)
}

// ListenAndServe listens on broker.addr and serves until ctx is
// cancelled, then finishes the requests in flight within
// server.shutdown_timeout.
func (b *Broker) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", b.cfg.Addr)
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	return b.Serve(ctx, ln)
}

// Serve serves on ln until ctx is cancelled, as ListenAndServe.
func (b *Broker) Serve(ctx context.Context, ln net.Listener) error {
	c := b.full.Server
	srv := &http.Server{Handler: b.handler, ReadHeaderTimeout: c.ReadHeaderTimeout, ReadTimeout: c.ReadTimeout,
		WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout, MaxHeaderBytes: c.MaxHeaderBytes,
		ErrorLog: slog.NewLogLogger(b.log.Handler(), slog.LevelWarn)}
	b.log.Info("serving", "url", "http://"+ln.Addr().String()+"/")
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("broker: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), c.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("broker: shutdown: %w", err)
	}
	<-served
	b.log.Info("stopped")
	return nil
}

// Close drops the broker's idle connections to the nodes.
func (b *Broker) Close() { b.client.CloseIdleConnections() }
