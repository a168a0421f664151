package api

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpusearch/gpusearch/query"
)

type fakeDevice query.DeviceUsage

func (f fakeDevice) DeviceUsage() query.DeviceUsage { return query.DeviceUsage(f) }

// TestGPUCollector: the GPU engine's runs and their host and device time
// become counters, its list cache's too when it has one, and without a
// GPU engine there are none.
func TestGPUCollector(t *testing.T) {
	gather := func(r deviceReporter) map[string]float64 {
		reg := prometheus.NewRegistry()
		reg.MustRegister(newGPUCollector(func() deviceReporter { return r }))
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				name := mf.GetName()
				for _, l := range m.GetLabel() {
					name += "/" + l.GetValue()
				}
				got[name] = m.GetCounter().GetValue()
			}
		}
		return got
	}
	got := gather(fakeDevice{Runs: 7, Held: 1500 * time.Millisecond, Busy: 1250 * time.Millisecond})
	want := map[string]float64{
		"gpusearch_gpu_runs_total":               7,
		"gpusearch_gpu_run_seconds_total/host":   1.5,
		"gpusearch_gpu_run_seconds_total/device": 1.25,
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got := gather(nil); len(got) != 0 {
		t.Errorf("no GPU engine: series %v, want none", got)
	}
	// With a list cache, its counters too.
	got = gather(fakeDevice{Runs: 1, ListCache: query.ListCacheUsage{On: true, Hits: 5, Misses: 2, StreamedBytes: 4096, Evictions: 1}})
	for k, v := range map[string]float64{
		"gpusearch_gpu_list_cache_lists_total/hit":      5,
		"gpusearch_gpu_list_cache_lists_total/miss":     2,
		"gpusearch_gpu_list_cache_streamed_bytes_total": 4096,
		"gpusearch_gpu_list_cache_evictions_total":      1,
	} {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
