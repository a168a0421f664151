package schedule

import (
	"errors"
	"math"
	"slices"
	"time"
)

// BoundConfig describes the processors a load is split between: what
// Bound needs besides the queries' measured costs.
type BoundConfig struct {
	// CPUWorkers run CPU queries at once, each at its sample's CPU time
	// plus CPUOverhead.
	CPUWorkers  int
	CPUOverhead time.Duration
	// GPURate is the rate the GPU alone sustains on the samples' mix
	// (queries a second); each query's GPU time is its sample's share,
	// scaled to it. 0 takes the samples' GPU times as they are, one
	// query after another.
	GPURate float64
}

// BoundResult is the best split of a load between CPU and GPU.
type BoundResult struct {
	// Rate is the highest rate (queries a second, arriving in the
	// samples' mix) at which neither processor is over its capacity.
	Rate float64 `json:"rate"`
	// ToCPU is the share of the queries the CPU runs at that rate (the
	// cheapest on it relative to the GPU).
	ToCPU float64 `json:"to_cpu"`
	// CPUAlone and GPUAlone are each processor's rate with all of it.
	CPUAlone float64 `json:"cpu_alone"`
	GPUAlone float64 `json:"gpu_alone"`
}

// Bound is the highest rate any scheduler could sustain on a mix of
// queries with the costs of samples: the optimum of the linear program
// that sends a fraction of each query to each processor so that the
// busier one is busy the least. Sorting the queries by CPU over GPU cost,
// the optimum gives the CPU a prefix and the GPU the rest, splitting one
// query between them (an exchange argument: moving load from a query of
// higher ratio to one of lower ratio never helps). It ignores queueing,
// batching and deadlines: a bound, not a prediction.
func Bound(samples []Sample, c BoundConfig) (BoundResult, error) {
	n := len(samples)
	if n == 0 || c.CPUWorkers < 1 || c.CPUOverhead < 0 || c.GPURate < 0 {
		return BoundResult{}, errors.New("schedule: Bound needs samples, CPU workers, and no negative overhead or GPU rate")
	}
	type job struct{ cpu, gpu float64 } // seconds of one worker, of the GPU
	jobs := make([]job, n)
	var cpuSum, gpuSum float64
	for i, s := range samples {
		if s.CPU <= 0 || s.GPU <= 0 {
			return BoundResult{}, errors.New("schedule: Bound needs every sample's CPU and GPU time")
		}
		jobs[i] = job{(s.CPU + c.CPUOverhead).Seconds(), s.GPU.Seconds()}
		cpuSum += jobs[i].cpu
		gpuSum += jobs[i].gpu
	}
	if c.GPURate > 0 {
		scale := float64(n) / (c.GPURate * gpuSum)
		for i := range jobs {
			jobs[i].gpu *= scale
		}
		gpuSum = float64(n) / c.GPURate
	}
	w := float64(c.CPUWorkers)
	slices.SortFunc(jobs, func(a, b job) int {
		// a.cpu/a.gpu against b.cpu/b.gpu, without dividing.
		switch x, y := a.cpu*b.gpu, b.cpu*a.gpu; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	// Per round of the mix (one arrival of each query), the CPU's load is
	// its queries' time over its workers, the GPU's its queries' time.
	best, toCPU := math.Inf(1), 0.0
	cpuLoad, gpuLoad := 0.0, gpuSum
	for k, j := range jobs {
		// Query k split: x of it on the CPU, 1-x on the GPU. The loads
		// cross where cpuLoad + x*j.cpu/w = gpuLoad - x*j.gpu.
		x := (gpuLoad - cpuLoad) / (j.cpu/w + j.gpu)
		x = min(max(x, 0), 1)
		if t := max(cpuLoad+x*j.cpu/w, gpuLoad-x*j.gpu); t < best {
			best, toCPU = t, float64(k)+x
		}
		cpuLoad += j.cpu / w
		gpuLoad -= j.gpu
	}
	return BoundResult{Rate: float64(n) / best, ToCPU: toCPU / float64(n), CPUAlone: float64(n) * w / cpuSum, GPUAlone: float64(n) / gpuSum}, nil
}

// OverheadFor is the CPU overhead per query that makes the samples' CPU
// times, on workers, sustain cpuRate (the CPU alone's measured rate): the
// per-query cost a fit on one idle core does not see. It is 0 when the
// samples alone are already slower.
func OverheadFor(samples []Sample, workers int, cpuRate float64) time.Duration {
	if len(samples) == 0 || workers < 1 || cpuRate <= 0 {
		return 0
	}
	var sum time.Duration
	for _, s := range samples {
		sum += s.CPU
	}
	mean := sum / time.Duration(len(samples))
	return max(0, time.Duration(float64(workers)/cpuRate*float64(time.Second))-mean)
}
