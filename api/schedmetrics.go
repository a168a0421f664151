package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// usageReporter is what an engine=auto engine reports when it is the
// CPU/GPU scheduler.
type usageReporter interface {
	Usage() schedule.Usage
}

// schedCollector exposes the serving index's scheduler: queries per
// processor, engine calls, and its workers' time by state. A reload
// starts a new scheduler, so the series restart from zero, as counters
// do when a process restarts.
type schedCollector struct {
	current                func() usageReporter // nil when engine=auto is no scheduler
	queries, calls, worker *prometheus.Desc
}

func newSchedCollector(current func() usageReporter) *schedCollector {
	return &schedCollector{
		current: current,
		queries: prometheus.NewDesc("gpusearch_scheduler_queries_total",
			"Queries engine=auto's scheduler ran, by processor.", []string{"processor"}, nil),
		calls: prometheus.NewDesc("gpusearch_scheduler_engine_calls_total",
			"Engine calls of the scheduler's workers, by processor (a GPU batch is one).", []string{"processor"}, nil),
		worker: prometheus.NewDesc("gpusearch_scheduler_worker_seconds_total",
			"Time the scheduler's workers spent, summed over the workers of a processor: busy (in engine calls), lock_wait (for the scheduler's lock), idle (waiting for a query).",
			[]string{"processor", "state"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *schedCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.queries
	ch <- c.calls
	ch <- c.worker
}

// Collect implements prometheus.Collector.
func (c *schedCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.current()
	if r == nil {
		return
	}
	u := r.Usage()
	for p := range u.Queries {
		name := schedule.Proc(p).String()
		ch <- prometheus.MustNewConstMetric(c.queries, prometheus.CounterValue, float64(u.Queries[p]), name)
		ch <- prometheus.MustNewConstMetric(c.calls, prometheus.CounterValue, float64(u.Calls[p]), name)
		ch <- prometheus.MustNewConstMetric(c.worker, prometheus.CounterValue, u.Busy[p].Seconds(), name, "busy")
		ch <- prometheus.MustNewConstMetric(c.worker, prometheus.CounterValue, u.LockWait[p].Seconds(), name, "lock_wait")
		ch <- prometheus.MustNewConstMetric(c.worker, prometheus.CounterValue, u.Idle[p].Seconds(), name, "idle")
	}
}

// deviceReporter is the serving index's GPU engine, when it accounts for
// its runs on the device (query.DeviceEngine).
type deviceReporter interface {
	DeviceUsage() query.DeviceUsage
}

// gpuCollector exposes the serving index's GPU engine: its runs (launch
// sequences) and the time they took on the host's clock and on the
// device's (query.DeviceUsage); the device's over the time that passed is
// how busy the GPU is. A reload opens a new engine, so the series restart
// from zero.
type gpuCollector struct {
	current       func() deviceReporter // nil without a GPU engine
	runs, seconds *prometheus.Desc
	// The list cache's counters, with one.
	cacheLists, cacheBytes, evictions *prometheus.Desc
}

func newGPUCollector(current func() deviceReporter) *gpuCollector {
	return &gpuCollector{
		current: current,
		runs: prometheus.NewDesc("gpusearch_gpu_runs_total",
			"Launch sequences the GPU engine ran (a batch of OR queries is one).", nil, nil),
		seconds: prometheus.NewDesc("gpusearch_gpu_run_seconds_total",
			"Time in the GPU engine's runs: on the host's clock (host), and on the device's from each run's first operation to its results' copy (device).",
			[]string{"clock"}, nil),
		cacheLists: prometheus.NewDesc("gpusearch_gpu_list_cache_lists_total",
			"Long lists the GPU engine's list cache was asked for: found on the device (hit) or copied in (miss).",
			[]string{"result"}, nil),
		cacheBytes: prometheus.NewDesc("gpusearch_gpu_list_cache_streamed_bytes_total",
			"Bytes of long lists the GPU engine copied into its list cache.", nil, nil),
		evictions: prometheus.NewDesc("gpusearch_gpu_list_cache_evictions_total",
			"Long lists the GPU engine's list cache evicted to make room.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *gpuCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.runs
	ch <- c.seconds
	ch <- c.cacheLists
	ch <- c.cacheBytes
	ch <- c.evictions
}

// Collect implements prometheus.Collector.
func (c *gpuCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.current()
	if r == nil {
		return
	}
	u := r.DeviceUsage()
	ch <- prometheus.MustNewConstMetric(c.runs, prometheus.CounterValue, float64(u.Runs))
	ch <- prometheus.MustNewConstMetric(c.seconds, prometheus.CounterValue, u.Held.Seconds(), "host")
	ch <- prometheus.MustNewConstMetric(c.seconds, prometheus.CounterValue, u.Busy.Seconds(), "device")
	if lc := u.ListCache; lc.On {
		ch <- prometheus.MustNewConstMetric(c.cacheLists, prometheus.CounterValue, float64(lc.Hits), "hit")
		ch <- prometheus.MustNewConstMetric(c.cacheLists, prometheus.CounterValue, float64(lc.Misses), "miss")
		ch <- prometheus.MustNewConstMetric(c.cacheBytes, prometheus.CounterValue, float64(lc.StreamedBytes))
		ch <- prometheus.MustNewConstMetric(c.evictions, prometheus.CounterValue, float64(lc.Evictions))
	}
}
