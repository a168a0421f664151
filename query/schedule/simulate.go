package schedule

import (
	"fmt"
	"sort"
	"time"
)

// SimJob is a job for the simulator: when it arrives, what the model
// predicts, and what it actually costs on each processor (on the GPU: its
// share of a batch, see SimConfig).
type SimJob struct {
	Arrival   time.Duration
	Predicted [2]time.Duration
	Actual    [2]time.Duration
}

// SimConfig describes the simulated system.
type SimConfig struct {
	Policy     Policy
	CPUs, GPUs int           // workers of each kind
	Deadline   time.Duration // per job, after its arrival
	Queues     Options
	// GPUBatch is the most jobs a GPU worker takes at once (default 1),
	// as the Scheduler's GPU worker does; a batch runs for GPUCall plus
	// the sum of its jobs' actual GPU costs.
	GPUBatch int
	GPUCall  time.Duration
}

// SimResult is the outcome of a simulation.
type SimResult struct {
	Delays  []time.Duration // per job: completion minus arrival
	RanOn   []Proc          // per job
	Missed  int             // jobs that finished after their deadline
	Stolen  int             // jobs run on the processor whose queue they were not in
	RunsPer []int           // per job: how many times it ran (always 1 unless a bug)
	Busy    [2]time.Duration
}

// Simulate replays jobs through Queues on the workers of c in simulated
// time, deterministically.
func Simulate(jobs []SimJob, c SimConfig) (SimResult, error) {
	res := SimResult{Delays: make([]time.Duration, len(jobs)), RanOn: make([]Proc, len(jobs)), RunsPer: make([]int, len(jobs))}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Arrival < jobs[order[b]].Arrival })

	type worker struct {
		proc      Proc
		busyUntil time.Duration
		jobs      []*Job
	}
	var workers []*worker
	for range c.GPUs {
		workers = append(workers, &worker{proc: GPU})
	}
	for range c.CPUs {
		workers = append(workers, &worker{proc: CPU})
	}
	q := NewQueues(c.Policy, c.GPUs > 0, c.Queues)
	var now time.Duration
	next, done := 0, 0
	for done < len(jobs) {
		// The next event: an arrival or a completion.
		t := time.Duration(-1)
		if next < len(order) {
			t = jobs[order[next]].Arrival
		}
		for _, w := range workers {
			if len(w.jobs) > 0 && (t < 0 || w.busyUntil < t) {
				t = w.busyUntil
			}
		}
		if t < 0 {
			return res, fmt.Errorf("schedule: %d jobs can never run under policy %s with %d CPU and %d GPU workers", q.Len(), c.Policy, c.CPUs, c.GPUs)
		}
		now = t
		for _, w := range workers {
			if len(w.jobs) == 0 || w.busyUntil != now {
				continue
			}
			for _, j := range w.jobs {
				res.Delays[j.ID] = now - jobs[j.ID].Arrival
				if res.Delays[j.ID] > c.Deadline {
					res.Missed++
				}
				q.Done()
				done++
			}
			w.jobs = w.jobs[:0]
		}
		for next < len(order) && jobs[order[next]].Arrival == now {
			i := order[next]
			q.Add(&Job{ID: uint64(i), Arrival: now, Deadline: now + c.Deadline, Cost: jobs[i].Predicted})
			next++
		}
		for _, w := range workers {
			if len(w.jobs) > 0 {
				continue
			}
			most := 1
			if w.proc == GPU {
				most = max(1, c.GPUBatch)
			}
			var took time.Duration
			for len(w.jobs) < most {
				j := q.Next(w.proc, now)
				if j == nil {
					break
				}
				if j.class != either && Proc(j.class) != w.proc { // run off its own queue
					res.Stolen++
				}
				w.jobs = append(w.jobs, j)
				took += jobs[j.ID].Actual[w.proc]
				res.RanOn[j.ID] = w.proc
				res.RunsPer[j.ID]++
			}
			if len(w.jobs) == 0 {
				continue
			}
			if w.proc == GPU {
				took += c.GPUCall
			}
			w.busyUntil = now + took
			res.Busy[w.proc] += took
		}
	}
	return res, nil
}
