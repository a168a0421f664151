package gpubench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// CacheOptions are bench gpu cache's settings.
type CacheOptions struct {
	Texts         []string // the query log's texts, in order
	Modes         []query.Mode
	K             int
	Policies      []string
	Fractions     []float64 // cache sizes, as shares of the long lists' bytes
	Warmup        float64   // share of the log that only warms the cache
	LongListBytes int64     // 0: gpu.DefaultLongListBytes
	// Open, when set, opens GPU engines to measure latency: resident
	// (cacheMB 0) and with a list cache of cacheMB.
	Open     func(policy string, cacheMB int64) (CacheEngine, error)
	Command  string
	Progress io.Writer
}

// CacheEngine is what the latency runs need of a GPU engine.
type CacheEngine interface {
	query.Engine
	CacheStats() (gpu.CacheStats, bool)
	Close() error
}

// CacheReport is bench gpu cache's JSON.
type CacheReport struct {
	Device  *gpu.DeviceInfo `json:"device,omitempty"`
	Index   CacheIndex      `json:"index"`
	Queries int             `json:"queries"`
	Warmup  int             `json:"warmup_queries"`
	K       int             `json:"k"`
	Rows    []CacheRow      `json:"rows"`
	// Resident is the fully resident engine's latency per mode (with a
	// GPU).
	Resident []CacheLatency `json:"resident,omitempty"`
	Run
}

// CacheIndex describes the index and how its lists divide.
type CacheIndex struct {
	Dir           string `json:"dir"`
	Docs          int    `json:"docs"`
	Postings      uint64 `json:"postings"`
	DocIDCodec    string `json:"docid_codec"`
	LongListBytes int64  `json:"long_list_bytes"`
	LongLists     int    `json:"long_lists"`
	LongBytes     int64  `json:"long_bytes"`
	ShortBytes    int64  `json:"short_bytes"`
}

// CacheRow is one mode, policy and cache size: the simulated hit rates,
// and with a GPU the engine's own and its latency.
type CacheRow struct {
	Mode          string  `json:"mode"`
	Policy        string  `json:"policy"`
	Fraction      float64 `json:"fraction"`
	CapacityBytes int64   `json:"capacity_bytes"`
	HitRate       float64 `json:"hit_rate"`      // by lists
	ByteHitRate   float64 `json:"byte_hit_rate"` // by bytes
	Hits          int64   `json:"hits"`
	Misses        int64   `json:"misses"`
	StreamedBytes int64   `json:"streamed_bytes"`
	Evictions     int64   `json:"evictions"`
	// With a GPU: the engine's counts over the measured queries, one at a
	// time, and their latency.
	GPU *CacheLatency `json:"gpu,omitempty"`
}

// CacheLatency is an engine's latency over the measured queries, run
// once each, one at a time.
type CacheLatency struct {
	Mode    string  `json:"mode"`
	Queries int     `json:"queries"`
	MeanUS  float64 `json:"mean_us"`
	P50US   float64 `json:"p50_us"`
	P99US   float64 `json:"p99_us"`
	HitRate float64 `json:"hit_rate,omitempty"`
	// Slowdown is the mean latency over the resident engine's.
	Slowdown float64 `json:"slowdown,omitempty"`
}

// Cache simulates the list cache on the log for each mode, policy and
// size, and, with o.Open, measures the latency of GPU engines with those
// caches and of a resident one.
func Cache(ctx context.Context, ix *index.Index, o CacheOptions) (*CacheReport, error) {
	began := time.Now()
	logw := progressTo(o.Progress)
	sim, err := gpu.NewCacheSim(ix, o.LongListBytes)
	if err != nil {
		return nil, err
	}
	long := o.LongListBytes
	if long <= 0 {
		long = gpu.DefaultLongListBytes
	}
	dc, _ := ix.Codecs()
	warm := int(o.Warmup * float64(len(o.Texts)))
	rep := &CacheReport{
		Index: CacheIndex{Dir: ix.Dir(), Docs: ix.NumDocs(), Postings: ix.Meta().Postings, DocIDCodec: dc.Name(),
			LongListBytes: long, LongLists: sim.LongLists(), LongBytes: sim.LongBytes(), ShortBytes: sim.ShortBytes()},
		Queries: len(o.Texts), Warmup: warm, K: o.K,
		Run: newRun(o.Command,
			"fraction: the cache's size over the long lists' bytes (long: at least long_list_bytes of docids and frequencies)",
			"hit rates: long-list accesses of the queries after the warm-up, one query at a time, the cache empty before the warm-up; a query's lists count once each",
			"gpu: the engine's own counts and latency over the same queries (each run once, after the same warm-up); slowdown: mean latency over the resident engine's",
		),
	}
	a := analysis.New()
	for _, m := range o.Modes {
		qs, err := query.ParseAll(a, o.Texts, m, o.K)
		if err != nil {
			return nil, err
		}
		var resident *CacheLatency
		if o.Open != nil {
			fmt.Fprintf(logw, "bench gpu cache: %s, resident\n", m)
			if resident, err = cacheLatency(ctx, o.Open, "", 0, qs, warm); err != nil {
				return nil, err
			}
			resident.Mode = string(m)
			rep.Resident = append(rep.Resident, *resident)
		}
		for _, policy := range o.Policies {
			for _, f := range o.Fractions {
				capacity := int64(f * float64(sim.LongBytes()))
				if o.Open != nil {
					// The engine takes whole MiB: simulate the size it gets.
					capacity = (capacity + 1<<20 - 1) &^ (1<<20 - 1)
				}
				st, err := sim.Run(policy, capacity, qs, warm)
				if err != nil {
					return nil, fmt.Errorf("bench gpu cache: %s %s %.2f: %w", m, policy, f, err)
				}
				row := CacheRow{Mode: string(m), Policy: policy, Fraction: f, CapacityBytes: st.CapacityBytes,
					HitRate: st.HitRate(), ByteHitRate: st.ByteHitRate(), Hits: st.Hits, Misses: st.Misses,
					StreamedBytes: st.StreamedBytes, Evictions: st.Evictions}
				fmt.Fprintf(logw, "bench gpu cache: %s %s %.2f: hit rate %.3f (bytes %.3f)\n", m, policy, f, row.HitRate, row.ByteHitRate)
				if o.Open != nil {
					if row.GPU, err = cacheLatency(ctx, o.Open, policy, capacity>>20, qs, warm); err != nil {
						return nil, err
					}
					row.GPU.Mode = string(m)
					if resident.MeanUS > 0 {
						row.GPU.Slowdown = row.GPU.MeanUS / resident.MeanUS
					}
				}
				rep.Rows = append(rep.Rows, row)
			}
		}
	}
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

// cacheLatency opens an engine (resident when cacheMB is 0), runs the
// warm-up queries, then times each other query once.
func cacheLatency(ctx context.Context, open func(string, int64) (CacheEngine, error), policy string, cacheMB int64,
	qs []query.Query, warm int) (*CacheLatency, error) {
	e, err := open(policy, cacheMB)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	for _, q := range qs[:warm] {
		if _, err := e.Search(ctx, q); err != nil {
			return nil, err
		}
	}
	before, _ := e.CacheStats()
	var lat []time.Duration
	for _, q := range qs[warm:] {
		t0 := time.Now()
		if _, err := e.Search(ctx, q); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	out := &CacheLatency{Queries: len(lat)}
	if len(lat) > 0 {
		s := latency.Summarize(lat)
		out.MeanUS, out.P50US, out.P99US = s.MeanUS, s.P50US, s.P99US
	}
	if after, ok := e.CacheStats(); ok {
		hits, misses := after.Hits-before.Hits, after.Misses-before.Misses
		if hits+misses > 0 {
			out.HitRate = float64(hits) / float64(hits+misses)
		}
	}
	return out, nil
}

// Print writes the report as a table.
func (rep *CacheReport) Print(w io.Writer) {
	ix := rep.Index
	fmt.Fprintf(w, "GPU list cache: index %s (%d docs, %s), %d long lists of >= %d bytes: %.1f MiB, short lists %.1f MiB\n",
		ix.Dir, ix.Docs, ix.DocIDCodec, ix.LongLists, ix.LongListBytes, float64(ix.LongBytes)/(1<<20), float64(ix.ShortBytes)/(1<<20))
	fmt.Fprintf(w, "%d queries, the first %d warm the cache\n", rep.Queries, rep.Warmup)
	for _, r := range rep.Resident {
		fmt.Fprintf(w, "resident %-3s mean %.1f us, p50 %.1f, p99 %.1f\n", r.Mode, r.MeanUS, r.P50US, r.P99US)
	}
	fmt.Fprintf(w, "%-4s %-4s %8s %9s %9s %10s %10s\n", "mode", "pol", "fraction", "hit_rate", "byte_hits", "streamedMB", "evictions")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "%-4s %-4s %8.2f %9.3f %9.3f %10.1f %10d", r.Mode, r.Policy, r.Fraction, r.HitRate, r.ByteHitRate,
			float64(r.StreamedBytes)/(1<<20), r.Evictions)
		if g := r.GPU; g != nil {
			fmt.Fprintf(w, "  gpu: hit rate %.3f, mean %.1f us (%.2fx resident), p50 %.1f, p99 %.1f", g.HitRate, g.MeanUS, g.Slowdown, g.P50US, g.P99US)
		}
		fmt.Fprintln(w)
	}
}
