package broker

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gpusearch/gpusearch/api"
)

// metrics are the broker's Prometheus series.
type metrics struct {
	requests      *prometheus.CounterVec   // route, code
	requestTime   *prometheus.HistogramVec // route
	shardRequests *prometheus.CounterVec   // shard, replica, outcome
	shardTime     *prometheus.HistogramVec // shard, replica: answers that won
	outstanding   *prometheus.GaugeVec     // shard, replica
	replicas      *prometheus.GaugeVec     // shard: replicas serving its generation
	retries       *prometheus.CounterVec   // shard
	hedges        *prometheus.CounterVec   // shard
	partial       prometheus.Counter
	cache         *prometheus.CounterVec // result: hit, miss
	cacheHit      prometheus.Counter
	cacheMiss     prometheus.Counter
	overhead      prometheus.Histogram
}

// latencyBuckets span 50us to 10s.
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2, 18)

func newMetrics(reg *prometheus.Registry, b *Broker) (*metrics, error) {
	const ns = "gpusearch_broker"
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "requests_total",
			Help: "Requests answered by the broker, by route and status code."}, []string{"route", "code"}),
		requestTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "request_seconds",
			Help: "Time to answer a request, by route.", Buckets: latencyBuckets}, []string{"route"}),
		shardRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "shard_requests_total",
			Help: "Requests sent to a shard replica, by outcome: ok, error (not reached: the replica is then avoided for broker.down_for), failed (a 5xx answer), refused (a 4xx: the request's fault), cancelled (a hedge or retry that lost, or the shard's deadline)."},
			[]string{"shard", "replica", "outcome"}),
		shardTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "shard_seconds",
			Help: "Time of the replica request that answered for its shard.", Buckets: latencyBuckets}, []string{"shard", "replica"}),
		outstanding: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "outstanding_requests",
			Help: "Requests sent to a replica and not yet answered."}, []string{"shard", "replica"}),
		replicas: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "replicas",
			Help: "Registered replicas serving the shard's routed generation."}, []string{"shard"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "retries_total",
			Help: "Requests sent to another replica after one failed."}, []string{"shard"}),
		hedges: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "hedges_total",
			Help: "Requests sent to another replica because the first was slower than the shard's p95."}, []string{"shard"}),
		partial: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "partial_total",
			Help: "Answers missing at least one shard."}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "cache_lookups_total",
			Help: "Result cache lookups, by result."}, []string{"result"}),
		overhead: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Name: "overhead_seconds",
			Help:    "Time an answer took beyond its slowest shard's request: parsing, scattering, merging.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 2, 16)}),
	}
	m.cacheHit, m.cacheMiss = m.cache.WithLabelValues("hit"), m.cache.WithLabelValues("miss")
	for _, c := range []prometheus.Collector{m.requests, m.requestTime, m.shardRequests, m.shardTime, m.outstanding,
		m.replicas, m.retries, m.hedges, m.partial, m.cache, m.overhead,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "etcd_synced_timestamp_seconds",
			Help: "When etcd last answered the membership watch (Unix time; 0 before)."}, func() float64 {
			if t := b.snap.Load().Synced; !t.IsZero() {
				return float64(t.UnixNano()) / 1e9
			}
			return 0
		}),
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// replicaMetrics are a replica's series, looked up once rather than by
// label on every request.
type replicaMetrics struct {
	time        prometheus.Observer
	outstanding prometheus.Gauge
	outcomes    map[string]prometheus.Counter // ok, error, failed, refused, cancelled
}

// forReplica looks up the series of the replica of shard shard on node.
func (m *metrics) forReplica(shard int, node string) replicaMetrics {
	sl := strconv.Itoa(shard)
	rm := replicaMetrics{time: m.shardTime.WithLabelValues(sl, node), outstanding: m.outstanding.WithLabelValues(sl, node),
		outcomes: map[string]prometheus.Counter{}}
	for _, o := range []string{"ok", "error", "failed", "refused", "cancelled"} {
		rm.outcomes[o] = m.shardRequests.WithLabelValues(sl, node, o)
	}
	return rm
}

// statusWriter records the status an answer was given.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// instrument counts and times a route's requests.
func (b *Broker) instrument(route string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h(sw, r)
		b.requests.Add(1)
		b.m.requests.WithLabelValues(route, strconv.Itoa(sw.code)).Inc()
		b.m.requestTime.WithLabelValues(route).Observe(time.Since(began).Seconds())
	})
}

func (b *Broker) handleMetrics() http.HandlerFunc {
	h := promhttp.HandlerFor(b.reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(b.log.Handler(), slog.LevelError)})
	return h.ServeHTTP
}

// handleHealthz answers "ok" when every shard has a replica to send
// queries to, 503 naming the missing shards otherwise (and before the
// first membership).
func (b *Broker) handleHealthz(w http.ResponseWriter, r *http.Request) {
	t := b.table.Load()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch missing := t.missing(); {
	case len(t.shards) == 0:
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "no shard registered\n")
	case len(missing) > 0:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "shards without a replica: %s\n", ints(missing))
	default:
		io.WriteString(w, "ok")
	}
}

// ints writes numbers as "1, 2".
func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// StatsResponse is the broker's answer of GET /stats.
type StatsResponse struct {
	Broker  BrokerStats  `json:"broker"`
	Cluster ClusterStats `json:"cluster"`
}

// BrokerStats describe the broker since it started.
type BrokerStats struct {
	UptimeSeconds float64        `json:"uptime_s"`
	Requests      int64          `json:"requests"`
	Partial       int64          `json:"partial"` // answers missing a shard
	Cache         api.CacheStats `json:"cache"`
	// OverheadP50US and OverheadP99US are the time answers took beyond
	// their slowest shard's request, over the latest 1024 answers.
	OverheadP50US float64 `json:"overhead_p50_us"`
	OverheadP99US float64 `json:"overhead_p99_us"`
}

// ClusterStats describe the membership and the routing.
type ClusterStats struct {
	Collection string `json:"collection"`
	// Consistent is true when every shard is routed to one generation.
	Consistent bool         `json:"consistent"`
	Missing    []int        `json:"missing_shards"` // shards without a replica
	Etcd       EtcdStats    `json:"etcd"`
	Shards     []ShardStats `json:"shards"`
}

// EtcdStats describe the membership watch.
type EtcdStats struct {
	Members  int    `json:"members"`
	Revision int64  `json:"revision"`
	Synced   string `json:"synced,omitempty"` // RFC 3339: when etcd last answered
	// Error is why the watcher is reading the membership again; meanwhile
	// the broker routes by the last membership it saw.
	Error string `json:"error,omitempty"`
}

// ShardStats describe one shard's routing and requests.
type ShardStats struct {
	Shard      int   `json:"shard"`
	Generation int64 `json:"generation"` // routed; -1 when the shard is missing
	Requests   int64 `json:"requests"`   // shard requests (one per query, retries and hedges aside)
	Errors     int64 `json:"errors"`     // requests no replica answered
	Retries    int64 `json:"retries"`
	Hedges     int64 `json:"hedges"`
	// P50US and P95US are the latest 1024 /search answers' latencies;
	// requests slower than P95US are hedged (multi-searches against
	// their own p95).
	P50US    float64        `json:"p50_us"`
	P95US    float64        `json:"p95_us"`
	Replicas []ReplicaStats `json:"replicas"`
}

// ReplicaStats describe one registered replica.
type ReplicaStats struct {
	Node        string  `json:"node"`
	URL         string  `json:"url"`
	Generation  int64   `json:"generation"`
	Routed      bool    `json:"routed"` // serves the shard's routed generation
	Down        bool    `json:"down"`   // not reached within broker.down_for
	Outstanding int64   `json:"outstanding"`
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"` // requests not reached or answered with a 5xx
	P50US       float64 `json:"p50_us"`
	P99US       float64 `json:"p99_us"`
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// Stats describes the broker, its membership and its routing.
func (b *Broker) Stats() StatsResponse {
	t, snap := b.table.Load(), b.snap.Load()
	now := time.Now()
	over := b.overhead.quantiles(0.5, 0.99)
	var cs api.CacheStats
	if b.cache != nil {
		cs = api.CacheStats{Capacity: b.cfg.CacheEntries, Entries: b.cache.len(), Hits: b.cache.hits.Load(), Misses: b.cache.misses.Load()}
		if n := cs.Hits + cs.Misses; n > 0 {
			cs.HitRate = float64(cs.Hits) / float64(n)
		}
	}
	out := StatsResponse{
		Broker: BrokerStats{UptimeSeconds: time.Since(b.started).Seconds(), Requests: b.requests.Load(),
			Partial: b.partial.Load(), Cache: cs, OverheadP50US: us(over[0]), OverheadP99US: us(over[1])},
		Cluster: ClusterStats{Collection: t.collection, Consistent: t.consistent, Missing: t.missing(),
			Etcd:   EtcdStats{Members: len(snap.Members), Revision: snap.Revision, Error: snap.Err},
			Shards: []ShardStats{}},
	}
	if out.Cluster.Missing == nil {
		out.Cluster.Missing = []int{}
	}
	if !snap.Synced.IsZero() {
		out.Cluster.Etcd.Synced = snap.Synced.UTC().Format(time.RFC3339Nano)
	}
	for _, s := range t.shards {
		q := s.st.lat.quantiles(0.5, 0.95)
		ss := ShardStats{Shard: s.index, Generation: s.generation, Requests: s.st.requests.Load(), Errors: s.st.errors.Load(),
			Retries: s.st.retries.Load(), Hedges: s.st.hedges.Load(), P50US: us(q[0]), P95US: us(q[1]), Replicas: []ReplicaStats{}}
		for _, list := range [][]*replica{s.replicas, s.others} {
			for _, r := range list {
				rq := r.lat.quantiles(0.5, 0.99)
				ss.Replicas = append(ss.Replicas, ReplicaStats{Node: r.m.Node, URL: r.m.URL, Generation: r.m.Generation,
					Routed: r.m.Generation == s.generation, Down: r.down(now), Outstanding: r.outstanding.Load(),
					Requests: r.requests.Load(), Errors: r.errors.Load(), P50US: us(rq[0]), P99US: us(rq[1])})
			}
		}
		out.Cluster.Shards = append(out.Cluster.Shards, ss)
	}
	return out
}

func (b *Broker) handleStats(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, b.Stats())
}
