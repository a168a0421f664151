package peer

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/bench/latency"
)

// Report is the outcome of one Bench: the collection, the machine and, per
// engine, its index and its runs.
type Report struct {
	Crawl          string            `json:"crawl"`
	QueriesFile    string            `json:"queries_file"`
	Queries        int               `json:"queries"`
	Documents      int               `json:"documents"`
	TextBytes      int64             `json:"text_bytes"`
	ExtractSeconds float64           `json:"extract_seconds"`
	Warmup         int               `json:"warmup_passes"`
	Repeat         int               `json:"timed_passes"`
	Rounds         int               `json:"rounds"`
	Machine        Machine           `json:"machine"`
	Engines        []EngineReport    `json:"engines"`
	Skipped        map[string]string `json:"skipped,omitempty"`
}

// Machine names where a report was measured.
type Machine struct {
	CPU   string `json:"cpu"`
	Cores int    `json:"cores"`
	Go    string `json:"go"`
	OS    string `json:"os"`
}

// EngineReport is one engine's figures.
type EngineReport struct {
	Name         string      `json:"name"`
	Info         Info        `json:"info"`
	IndexSeconds float64     `json:"index_seconds"`
	IndexBytes   int64       `json:"index_bytes"`
	Runs         []RunReport `json:"runs"`
}

// RunReport summarises one engine's Run. Times are in microseconds: CPU is
// the searching thread's CPU time, Wall the elapsed time; on a busy machine
// the CPU figures are the ones to compare, since waiting for a core inflates
// only the wall ones. Overlap10 is the mean overlap@10 with gpusearch's run
// of the same Spec over OverlapQueries queries (those on which gpusearch has
// a hit); CPUVsGPUSearch and WallVsGPUSearch are this run's mean times over
// gpusearch's. BestCPUMeanUS and BestCPUP50US take each query's fastest
// pass instead of every pass, applied to every engine. BestWallMeanUS and
// BestWallP50US are PISA's own rule, which has no CPU clock: each query's
// fastest pass by the wall clock, truncated to whole microseconds as
// PISA's queries tool records it. The CPU clock is a system call (about a
// microsecond on the development box), part of which falls inside each
// time it measures; the wall clock is read without one.
type RunReport struct {
	Spec
	Samples         int     `json:"samples"`
	CPUMeanUS       float64 `json:"cpu_mean_us"`
	CPUP50US        float64 `json:"cpu_p50_us"`
	CPUP99US        float64 `json:"cpu_p99_us"`
	BestCPUMeanUS   float64 `json:"best_cpu_mean_us"`
	BestCPUP50US    float64 `json:"best_cpu_p50_us"`
	BestWallMeanUS  float64 `json:"best_wall_mean_us"`
	BestWallP50US   float64 `json:"best_wall_p50_us"`
	WallMeanUS      float64 `json:"wall_mean_us"`
	WallP50US       float64 `json:"wall_p50_us"`
	WallP99US       float64 `json:"wall_p99_us"`
	NoHits          int     `json:"no_hits"`
	Overlap10       float64 `json:"overlap10"`
	OverlapQueries  int     `json:"overlap_queries"`
	CPUVsGPUSearch  float64 `json:"cpu_vs_gpusearch"`
	WallVsGPUSearch float64 `json:"wall_vs_gpusearch"`
	Algorithm       string  `json:"algorithm,omitempty"` // Run.Algorithm
	// Each round's mean of the queries' fastest wall-clock passes in that
	// round alone, us: a slow spell of a shared machine shows as a round
	// out of line.
	RoundBestWallMeanUS []float64 `json:"round_best_wall_mean_us,omitempty"`
}

// summarize fills the time figures of a run of rounds rounds.
func summarize(r Run, rounds int) RunReport {
	rep := RunReport{Spec: r.Spec, Samples: len(r.Wall), Algorithm: r.Algorithm}
	cpu, wall := latency.Summarize(slices.Clone(r.CPU)), latency.Summarize(slices.Clone(r.Wall))
	rep.CPUMeanUS, rep.CPUP50US, rep.CPUP99US = cpu.MeanUS, cpu.P50US, cpu.P99US
	if n := len(r.Hits); n > 0 && len(r.CPU)%n == 0 {
		best := latency.Summarize(fastestPasses(r.CPU, n))
		rep.BestCPUMeanUS, rep.BestCPUP50US = best.MeanUS, best.P50US
		// (PISA's rule: whole microseconds, truncated.)
		fastest := fastestPasses(r.Wall, n)
		for i, t := range fastest {
			fastest[i] = t.Truncate(time.Microsecond)
		}
		best = latency.Summarize(fastest)
		rep.BestWallMeanUS, rep.BestWallP50US = best.MeanUS, best.P50US
	}
	rep.WallMeanUS, rep.WallP50US, rep.WallP99US = wall.MeanUS, wall.P50US, wall.P99US
	rep.RoundBestWallMeanUS = roundMeans(r.Wall, len(r.Hits), rounds)
	for _, h := range r.Hits {
		if len(h) == 0 {
			rep.NoHits++
		}
	}
	return rep
}

// roundMeans splits times, passes over n queries, into rounds equal
// rounds and returns each round's mean of the queries' fastest times, us;
// nil where they do not split so.
func roundMeans(times []time.Duration, n, rounds int) []float64 {
	if n == 0 || rounds < 1 || len(times)%(n*rounds) != 0 {
		return nil
	}
	size := len(times) / rounds
	means := make([]float64, rounds)
	for i := range means {
		means[i] = latency.Summarize(fastestPasses(times[i*size:(i+1)*size], n)).MeanUS
	}
	return means
}

// fastestPasses returns each of n queries' fastest time in times, pass
// after pass of the n queries.
func fastestPasses(times []time.Duration, n int) []time.Duration {
	best := slices.Clone(times[:n])
	for p := n; p < len(times); p += n {
		for q, t := range times[p : p+n] {
			best[q] = min(best[q], t)
		}
	}
	return best
}

// overlap10 returns the mean over queries of |top10(got) ∩ top10(ref)| /
// |top10(ref)|, over the queries on which ref has a hit, and their number.
func overlap10(got, ref [][]Hit) (mean float64, n int) {
	var sum float64
	for qi, r := range ref {
		r = r[:min(len(r), 10)]
		if len(r) == 0 {
			continue
		}
		want := make(map[int]bool, len(r))
		for _, h := range r {
			want[h.Doc] = true
		}
		common := 0
		for _, h := range got[qi][:min(len(got[qi]), 10)] {
			if want[h.Doc] {
				common++
			}
		}
		sum += float64(common) / float64(len(r))
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// ThisMachine describes the machine the process runs on: the CPU model from
// /proc/cpuinfo where there is one.
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(data)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}
