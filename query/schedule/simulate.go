package schedule

import (
	"fmt"
	"sort"
	"time"
)

// SimJob is a job for the simulator: when it arrives, what the model
// predicts, and what it actually costs on each processor.
type SimJob struct {
	Arrival   time.Duration
	Predicted [2]time.Duration
	Actual    [2]time.Duration
}

// SimResult is the outcome of a simulation.
type SimResult struct {
	Delays  []time.Duration // per job: completion minus arrival
	RanOn   []Proc          // per job
	Missed  int             // jobs that finished after their deadline
	Stolen  int             // jobs run on the processor whose queue they were not in
	RunsPer []int           // per job: how many times it ran (always 1 unless a bug)
}

// Simulate replays jobs through Queues on cpus CPU workers and gpus GPU
// workers in simulated time, deterministically.
func Simulate(jobs []SimJob, p Policy, cpus, gpus int, deadline time.Duration, o Options) (SimResult, error) {
	res := SimResult{Delays: make([]time.Duration, len(jobs)), RanOn: make([]Proc, len(jobs)), RunsPer: make([]int, len(jobs))}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Arrival < jobs[order[b]].Arrival })

	type worker struct {
		proc      Proc
		busyUntil time.Duration
		job       *Job
	}
	var workers []*worker
	for range gpus {
		workers = append(workers, &worker{proc: GPU})
	}
	for range cpus {
		workers = append(workers, &worker{proc: CPU})
	}
	q := NewQueues(p, gpus > 0, o)
	var now time.Duration
	next, done := 0, 0
	for done < len(jobs) {
		// The next event: an arrival or a completion.
		t := time.Duration(-1)
		if next < len(order) {
			t = jobs[order[next]].Arrival
		}
		for _, w := range workers {
			if w.job != nil && (t < 0 || w.busyUntil < t) {
				t = w.busyUntil
			}
		}
		if t < 0 {
			return res, fmt.Errorf("schedule: %d jobs can never run under policy %s with %d CPU and %d GPU workers", q.Len(), p, cpus, gpus)
		}
		now = t
		for _, w := range workers {
			if w.job != nil && w.busyUntil == now {
				id := w.job.ID
				res.Delays[id] = now - jobs[id].Arrival
				if res.Delays[id] > deadline {
					res.Missed++
				}
				w.job = nil
				q.Done()
				done++
			}
		}
		for next < len(order) && jobs[order[next]].Arrival == now {
			i := order[next]
			q.Add(&Job{ID: uint64(i), Arrival: now, Deadline: now + deadline, Cost: jobs[i].Predicted})
			next++
		}
		for _, w := range workers {
			if w.job != nil {
				continue
			}
			j := q.Next(w.proc, now)
			if j == nil {
				continue
			}
			if j.class != either && Proc(j.class) != w.proc {
				res.Stolen++
			}
			w.job, w.busyUntil = j, now+jobs[j.ID].Actual[w.proc]
			res.RanOn[j.ID] = w.proc
			res.RunsPer[j.ID]++
		}
	}
	return res, nil
}
