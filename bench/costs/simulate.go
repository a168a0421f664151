package costs

import (
	"math/rand/v2"
	"time"

	"github.com/gpusearch/gpusearch/query/schedule"
)

// SimulateOptions are bench simulate's settings.
type SimulateOptions struct {
	Policies    []schedule.Policy
	CPUWorkers  int
	GPUBatch    int           // most jobs the GPU takes at once
	GPUCall     time.Duration // fixed cost of one GPU batch
	CPUOverhead time.Duration // added to every CPU job's measured time
	Deadline    time.Duration
	Horizon     time.Duration // simulated arrivals per rate
	StealOldest bool
	Seed        uint64
}

// SimulateReport is what bench simulate prints (keys in the order of the
// map it once was).
type SimulateReport struct {
	CPUOverheadUS int64             `json:"cpu_overhead_us"`
	CPUWorkers    int               `json:"cpu_workers"`
	GPUBatch      int               `json:"gpu_batch"`
	GPUCallUS     int64             `json:"gpu_call_us"`
	Best          map[string]SimRun `json:"max_rate_without_misses"`
	Model         *schedule.Model   `json:"model"`
	Samples       int               `json:"samples"`
	StealOldest   bool              `json:"steal_oldest"`
}

// SimRun is one simulated rate: what each processor ran, and its busy time.
type SimRun struct {
	Rate     float64 `json:"rate"`
	Missed   int     `json:"missed"`
	RanOnCPU int     `json:"ran_on_cpu"`
	RanOnGPU int     `json:"ran_on_gpu"`
	BusyCPUS float64 `json:"busy_cpu_s"`
	BusyGPUS float64 `json:"busy_gpu_s"`
}

// maxSimJobs bounds the arrivals of one simulated rate.
const maxSimJobs = 4e6

// Simulate finds, for each policy, the highest rate of Poisson arrivals
// drawn from samples that the scheduler's queues serve with no missed
// deadline, in simulated time: the samples' measured costs are the
// actual ones, m's predictions what the queues see.
func Simulate(samples []schedule.Sample, m *schedule.Model, o SimulateOptions) *SimulateReport {
	rep := &SimulateReport{CPUOverheadUS: o.CPUOverhead.Microseconds(), CPUWorkers: o.CPUWorkers, GPUBatch: o.GPUBatch,
		GPUCallUS: o.GPUCall.Microseconds(), Best: map[string]SimRun{}, Model: m, Samples: len(samples), StealOldest: o.StealOldest}
	for _, p := range o.Policies {
		run := func(rate float64) SimRun { return simulate(samples, m, p, rate, o) }
		// Double, then bisect; a rate past maxSimJobs arrivals is not
		// tried (the answer is then a lower bound).
		lo, hi := 0.0, 1000.0
		for hi*o.Horizon.Seconds() <= maxSimJobs && run(hi).Missed == 0 {
			lo, hi = hi, 2*hi
		}
		for hi-lo > max(lo/100, 1) {
			if mid := (lo + hi) / 2; run(mid).Missed == 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		rep.Best[string(p)] = run(lo)
	}
	return rep
}

// simulate replays rate * horizon arrivals, each a sample drawn at random.
func simulate(samples []schedule.Sample, m *schedule.Model, p schedule.Policy, rate float64, o SimulateOptions) SimRun {
	r := rand.New(rand.NewPCG(o.Seed, 1))
	jobs := make([]schedule.SimJob, int(rate*o.Horizon.Seconds()))
	var t float64
	for i := range jobs {
		t += r.ExpFloat64() / rate
		s := samples[r.IntN(len(samples))]
		c, g := m.Predict(s.Features)
		jobs[i] = schedule.SimJob{Arrival: time.Duration(t * float64(time.Second)), Predicted: [2]time.Duration{c, g}, Actual: [2]time.Duration{s.CPU + o.CPUOverhead, s.GPU}}
	}
	res, err := schedule.Simulate(jobs, schedule.SimConfig{Policy: p, CPUs: o.CPUWorkers, GPUs: 1, Deadline: o.Deadline,
		Queues: schedule.Options{StealOldest: o.StealOldest}, GPUBatch: o.GPUBatch, GPUCall: o.GPUCall})
	if err != nil { // only a policy without its processor: no rate is sustained
		return SimRun{Rate: rate, Missed: len(jobs)}
	}
	run := SimRun{Rate: rate, Missed: res.Missed, BusyCPUS: res.Busy[schedule.CPU].Seconds(), BusyGPUS: res.Busy[schedule.GPU].Seconds()}
	for _, on := range res.RanOn {
		if on == schedule.CPU {
			run.RanOnCPU++
		} else {
			run.RanOnGPU++
		}
	}
	return run
}
