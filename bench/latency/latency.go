// Package latency summarizes measured durations for every benchmark
// harness (nearest-rank percentiles, the mean and the median, in
// microseconds where a report prints them) and reads a thread's CPU clock.
package latency

import (
	"math"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Summary is a set of durations' count, mean, nearest-rank percentiles
// and maximum, in microseconds (all zero for an empty set).
type Summary struct {
	N                                  int
	MeanUS, P50US, P90US, P95US, P99US float64
	MaxUS                              float64
}

// Summarize sorts d in place and summarizes it.
func Summarize(d []time.Duration) Summary {
	s := Summary{N: len(d)}
	if len(d) == 0 {
		return s
	}
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	s.MeanUS = US(sum) / float64(len(d))
	s.P50US, s.P90US = US(Percentile(d, 0.50)), US(Percentile(d, 0.90))
	s.P95US, s.P99US = US(Percentile(d, 0.95)), US(Percentile(d, 0.99))
	s.MaxUS = US(d[len(d)-1])
	return s
}

// Percentile is the nearest-rank p-quantile (0 < p <= 1) of sorted
// durations: the smallest with at least p of them at or below it (0 for
// none).
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p * float64(len(sorted))))
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// Median is the middle of ts (the upper one of an even count), which it
// leaves unsorted; ts is not empty.
func Median(ts []time.Duration) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[len(s)/2]
}

// US is d in microseconds.
func US(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// ThreadCPU is the CPU time the calling OS thread has used (0 where the
// clock cannot be read). On a shared machine it stays close to what the
// work would take alone, where wall time also counts waiting for a core;
// lock the goroutine to its thread around what it times.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
