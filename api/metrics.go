package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpusearch/gpusearch/index"
)

// metrics are the server's Prometheus collectors, registered on the
// registry passed in Options (never the global one).
type metrics struct {
	requests      *prometheus.CounterVec   // route, code
	requestTime   *prometheus.HistogramVec // route
	searchTime    *prometheus.HistogramVec // mode, engine
	cache         *prometheus.CounterVec   // result: hit|miss
	reloads       *prometheus.CounterVec   // result: ok|refused
	indexDocs     prometheus.Gauge
	indexTerms    prometheus.Gauge
	indexPostings prometheus.Gauge
	indexBytes    prometheus.Gauge
}

// latencyBuckets span 10us to about 5s, the server's default timeout.
var latencyBuckets = prometheus.ExponentialBuckets(10e-6, 2.5, 15)

// newMetrics registers the server's collectors on reg; hitRatio, entries,
// sched (the serving scheduler, or nil) and device (the serving GPU
// engine, or nil) are read at each scrape.
func newMetrics(reg prometheus.Registerer, hitRatio, entries func() float64, sched func() usageReporter, device func() deviceReporter) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpusearch_http_requests_total", Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		requestTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gpusearch_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route.",
			Buckets: latencyBuckets,
		}, []string{"route"}),
		searchTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gpusearch_search_duration_seconds", Help: "Time to answer a search (analysis, cache, engine, URLs), by mode and answering engine.",
			Buckets: latencyBuckets,
		}, []string{"mode", "engine"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpusearch_cache_requests_total", Help: "Result cache lookups, by result (hit or miss).",
		}, []string{"result"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpusearch_index_reloads_total", Help: "POST /admin/reload attempts, by result (ok or refused).",
		}, []string{"result"}),
		indexDocs:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "gpusearch_index_documents", Help: "Documents in the served index."}),
		indexTerms:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "gpusearch_index_terms", Help: "Distinct terms in the served index."}),
		indexPostings: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gpusearch_index_postings", Help: "Postings in the served index."}),
		indexBytes:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "gpusearch_index_bytes", Help: "Size of the served index's files in bytes."}),
	}
	ratio := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gpusearch_cache_hit_ratio", Help: "Result cache hits / lookups since the server started (0 before the first).",
	}, hitRatio)
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gpusearch_cache_entries", Help: "Results held in the cache of the served index.",
	}, entries)
	for _, c := range []prometheus.Collector{m.requests, m.requestTime, m.searchTime, m.cache, m.reloads,
		m.indexDocs, m.indexTerms, m.indexPostings, m.indexBytes, ratio, held, newSchedCollector(sched), newGPUCollector(device)} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Make the cache series exist from the start, so a hit rate can be
	// computed before the first miss.
	m.cache.WithLabelValues("hit")
	m.cache.WithLabelValues("miss")
	return m, nil
}

// setIndex points the index gauges at a newly served index.
func (m *metrics) setIndex(meta index.Meta) {
	m.indexDocs.Set(float64(meta.Docs))
	m.indexTerms.Set(float64(meta.Terms))
	m.indexPostings.Set(float64(meta.Postings))
	m.indexBytes.Set(float64(meta.Bytes()))
}
