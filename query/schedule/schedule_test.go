package schedule

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/query"
)

const ms = time.Millisecond

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		policy   Policy
		hasGPU   bool
		cpu, gpu time.Duration
		want     int
	}{
		{"gpu much faster", PolicyHybrid, true, 10 * ms, 2 * ms, int(GPU)},
		{"cpu much faster", PolicyHybrid, true, 2 * ms, 10 * ms, int(CPU)},
		{"close call", PolicyHybrid, true, 10 * ms, 9 * ms, either},
		{"no gpu", PolicyHybrid, false, 10 * ms, 1 * ms, int(CPU)},
		{"policy cpu", PolicyCPU, true, 10 * ms, 1 * ms, int(CPU)},
		{"policy gpu", PolicyGPU, true, 1 * ms, 10 * ms, int(GPU)},
		{"best picks faster", PolicyBest, true, 10 * ms, 9 * ms, int(GPU)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueues(tt.policy, tt.hasGPU, Options{})
			j := &Job{Cost: [2]time.Duration{tt.cpu, tt.gpu}}
			if got := q.classify(j); got != tt.want {
				t.Errorf("classify(cpu=%v, gpu=%v) = %d, want %d", tt.cpu, tt.gpu, got, tt.want)
			}
		})
	}
}

func TestNextOrder(t *testing.T) {
	q := NewQueues(PolicyHybrid, true, Options{Promote: 0.5})
	long := &Job{ID: 1, Arrival: 0, Deadline: 100 * ms, Cost: [2]time.Duration{50 * ms, 200 * ms}}
	short := &Job{ID: 2, Arrival: 1 * ms, Deadline: 101 * ms, Cost: [2]time.Duration{1 * ms, 20 * ms}}
	flex := &Job{ID: 3, Arrival: 2 * ms, Deadline: 102 * ms, Cost: [2]time.Duration{5 * ms, 5 * ms}}
	gpuJob := &Job{ID: 4, Arrival: 3 * ms, Deadline: 103 * ms, Cost: [2]time.Duration{50 * ms, 1 * ms}}
	for _, j := range []*Job{long, short, flex, gpuJob} {
		q.Add(j)
	}
	// Before promotion the CPU takes its cheapest job first.
	if j := q.Next(CPU, 10*ms); j != short {
		t.Fatalf("Next(CPU) = %v, want the short job", j)
	}
	// After the long job passes half its time to deadline it is urgent.
	// (Copies: a job belongs to one Queues.)
	q2 := NewQueues(PolicyHybrid, true, Options{Promote: 0.5})
	long2, short2 := *long, *short
	q2.Add(&long2)
	q2.Add(&short2)
	if j := q2.Next(CPU, 60*ms); j != &long2 {
		t.Fatalf("Next(CPU) past promotion = %v, want the long job", j)
	}
	// The GPU runs its own job, then the either job, then steals.
	if j := q.Next(GPU, 10*ms); j != gpuJob {
		t.Fatalf("Next(GPU) = %v, want the GPU job", j)
	}
	if j := q.Next(GPU, 10*ms); j != flex {
		t.Fatalf("Next(GPU) = %v, want the either job", j)
	}
	if j := q.Next(GPU, 10*ms); j != long {
		t.Fatalf("Next(GPU) = %v, want the stolen CPU job", j)
	}
	if j := q.Next(GPU, 10*ms); j != nil {
		t.Fatalf("Next(GPU) on empty queues = %v, want nil", j)
	}
	// An urgent CPU job waits for the CPU, unless UrgentAnyProc lets
	// the GPU take it before its own cheaper job.
	for _, anyProc := range []bool{false, true} {
		q3 := NewQueues(PolicyHybrid, true, Options{Promote: 0.5, UrgentAnyProc: anyProc})
		long3, gpu3 := *long, *gpuJob
		q3.Add(&long3)
		q3.Add(&gpu3)
		want := &gpu3
		if anyProc {
			want = &long3
		}
		if j := q3.Next(GPU, 60*ms); j != want {
			t.Errorf("UrgentAnyProc %v: Next(GPU) past the long job's promotion = %v, want %v", anyProc, j, want)
		}
	}
}

func TestNextByAffinity(t *testing.T) {
	// Every job is faster on the GPU, so all wait in its queue. The GPU
	// takes first the job that would cost the CPU most per GPU time; the
	// idle CPU steals the job it loses least on.
	q := NewQueues(PolicyHybrid, true, Options{})
	heavy := &Job{ID: 1, Cost: [2]time.Duration{40 * ms, 2 * ms}}  // ratio 20
	medium := &Job{ID: 2, Cost: [2]time.Duration{10 * ms, 1 * ms}} // ratio 10
	light := &Job{ID: 3, Cost: [2]time.Duration{3 * ms, 1 * ms}}   // ratio 3
	for _, j := range []*Job{heavy, medium, light} {               // oldest first
		q.Add(j)
		if j.class != int(GPU) {
			t.Fatalf("job %d in queue %d, want the GPU's", j.ID, j.class)
		}
	}
	if j := q.Next(CPU, 0); j != light {
		t.Fatalf("Next(CPU) = %v, want the light job (the CPU loses least on it)", j)
	}
	if j := q.Next(GPU, 0); j != heavy {
		t.Fatalf("Next(GPU) = %v, want the heavy job (largest CPU/GPU ratio)", j)
	}
	if j := q.Next(GPU, 0); j != medium {
		t.Fatalf("Next(GPU) = %v, want the medium job", j)
	}
}

func TestSimulateCPUStealsLightJobs(t *testing.T) {
	// A burst of jobs that all prefer the GPU, half of them heavy on the
	// CPU: the idle CPU steals, but only light jobs, so the GPU's time goes
	// where it saves the most.
	var jobs []SimJob
	for i := range 40 {
		c := 2 * ms
		if i%2 == 0 {
			c = 30 * ms
		}
		jobs = append(jobs, SimJob{Predicted: [2]time.Duration{c, 1 * ms}, Actual: [2]time.Duration{c, 1 * ms}})
	}
	res, err := Simulate(jobs, SimConfig{Policy: PolicyHybrid, CPUs: 1, GPUs: 1, Deadline: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stolen == 0 {
		t.Fatal("the idle CPU stole nothing")
	}
	for i, p := range res.RanOn {
		if p == CPU && i%2 == 0 {
			t.Errorf("the CPU ran heavy job %d", i)
		}
	}
}

func TestSimulateGPUBatches(t *testing.T) {
	// Eight jobs at once on a GPU that takes four at a time: two batches,
	// each the call's cost plus its jobs' costs.
	jobs := make([]SimJob, 8)
	for i := range jobs {
		jobs[i] = SimJob{Predicted: [2]time.Duration{10 * ms, 1 * ms}, Actual: [2]time.Duration{10 * ms, 1 * ms}}
	}
	res, err := Simulate(jobs, SimConfig{Policy: PolicyGPU, GPUs: 1, Deadline: time.Second, GPUBatch: 4, GPUCall: 2 * ms})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range res.Delays {
		want := 6 * ms
		if i >= 4 {
			want = 12 * ms
		}
		if d != want {
			t.Errorf("job %d done after %v, want %v", i, d, want)
		}
	}
	if res.Busy[GPU] != 12*ms {
		t.Errorf("GPU busy %v, want 12ms", res.Busy[GPU])
	}
}

// poisson makes n jobs arriving at rate per second with costs drawn so
// that about half prefer each processor.
func poisson(n int, rate float64, seed uint64) []SimJob {
	r := rand.New(rand.NewPCG(seed, 7))
	jobs := make([]SimJob, n)
	var t float64
	for i := range jobs {
		t += r.ExpFloat64() / rate
		long := r.Float64() < 0.5
		var c, g time.Duration
		if long { // long lists: the GPU wins big
			c, g = time.Duration(20+r.IntN(20))*ms, time.Duration(2+r.IntN(3))*ms
		} else { // short lists: the CPU wins
			c, g = time.Duration(1+r.IntN(2))*ms, time.Duration(3+r.IntN(2))*ms
		}
		jobs[i] = SimJob{Arrival: time.Duration(t * float64(time.Second)), Predicted: [2]time.Duration{c, g}, Actual: [2]time.Duration{c, g}}
	}
	return jobs
}

func TestSimulateAnswersEveryJobOnce(t *testing.T) {
	jobs := poisson(2000, 300, 1)
	for _, p := range []Policy{PolicyCPU, PolicyGPU, PolicyBest, PolicyHybrid} {
		t.Run(string(p), func(t *testing.T) {
			res, err := Simulate(jobs, SimConfig{Policy: p, CPUs: 4, GPUs: 1, Deadline: 500 * ms})
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range res.RunsPer {
				if n != 1 {
					t.Fatalf("job %d ran %d times", i, n)
				}
				if res.Delays[i] < jobs[i].Actual[res.RanOn[i]] {
					t.Fatalf("job %d finished %v after arrival, faster than its cost %v", i, res.Delays[i], jobs[i].Actual[res.RanOn[i]])
				}
			}
		})
	}
}

func TestSimulateStealing(t *testing.T) {
	// A burst of jobs that all prefer the GPU: the idle CPU must steal.
	var jobs []SimJob
	for range 50 {
		jobs = append(jobs, SimJob{Predicted: [2]time.Duration{10 * ms, 2 * ms}, Actual: [2]time.Duration{10 * ms, 2 * ms}})
	}
	res, err := Simulate(jobs, SimConfig{Policy: PolicyHybrid, CPUs: 1, GPUs: 1, Deadline: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stolen == 0 {
		t.Fatal("no job was stolen by the idle CPU")
	}
	cpuRan := 0
	for _, p := range res.RanOn {
		if p == CPU {
			cpuRan++
		}
	}
	if cpuRan == 0 || cpuRan == len(jobs) {
		t.Fatalf("CPU ran %d of %d jobs, want some but not all", cpuRan, len(jobs))
	}
}

func TestSimulateDeadlinesWhenFeasible(t *testing.T) {
	// At a rate the hybrid system sustains, no deadline is missed, while
	// the CPU alone falls behind.
	jobs := poisson(3000, 320, 2)
	hybrid, err := Simulate(jobs, SimConfig{Policy: PolicyHybrid, CPUs: 4, GPUs: 1, Deadline: 500 * ms})
	if err != nil {
		t.Fatal(err)
	}
	if hybrid.Missed != 0 {
		t.Errorf("hybrid missed %d deadlines at a feasible rate", hybrid.Missed)
	}
	cpu, err := Simulate(jobs, SimConfig{Policy: PolicyCPU, CPUs: 4, GPUs: 1, Deadline: 500 * ms})
	if err != nil {
		t.Fatal(err)
	}
	if cpu.Missed == 0 {
		t.Errorf("cpu-only missed no deadline at 320 q/s with 4 workers; the test load is too light")
	}
}

func TestSimulateNoWorkerForQueue(t *testing.T) {
	if _, err := Simulate(poisson(5, 100, 3), SimConfig{Policy: PolicyGPU, CPUs: 4, Deadline: time.Second}); err == nil {
		t.Fatal("policy gpu with no GPU worker: want an error, not a hang")
	}
}

func TestFitRecoversModel(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var samples []Sample
	for range 400 {
		f := Features{Terms: 2 + r.IntN(3), Shortest: float64(1 + r.IntN(1e4)), Total: float64(1e4 + r.IntN(1e6)), Mode: query.Or}
		f.Second = f.Shortest * 2
		// CPU: 8 ns per posting; GPU: 50 us + tiny slope, with 5% noise.
		noise := func() float64 { return 1 + 0.05*(r.Float64()*2-1) }
		cpu := time.Duration(8e-9 * f.Total * noise() * float64(time.Second))
		gpu := time.Duration(5e-5 * math.Pow(f.Total, 0.1) * noise() * float64(time.Second))
		samples = append(samples, Sample{Features: f, CPU: cpu, GPU: gpu})
	}
	m, err := Fit(samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUError > 0.1 || m.GPUError > 0.1 {
		t.Errorf("held-out mean relative error cpu %.3f gpu %.3f, want < 0.1", m.CPUError, m.GPUError)
	}
	checkRoundTrip(t, m, []Features{samples[0].Features})
	if _, ok, err := LoadModel(t.TempDir()); ok || err != nil {
		t.Errorf("LoadModel of a directory without a model = %v, %v; want the default", ok, err)
	}
}
