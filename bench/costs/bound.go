package costs

import (
	"time"

	"github.com/gpusearch/gpusearch/query/schedule"
)

// BoundOptions are bench bound's settings.
type BoundOptions struct {
	CPUWorkers   int     // the scheduler's, under hybrid
	AloneWorkers int     // the CPU workers of CPURate's run
	GPURate      float64 // queries a second the GPU alone sustains on the mix
	CPURate      float64 // queries a second the CPU alone sustains (0: unknown)
	Overheads    []time.Duration
}

// BoundReport is what bench bound prints (keys in the order of the map it
// once was).
type BoundReport struct {
	Bounds     []BoundRow `json:"bounds"`
	CPURate    float64    `json:"cpu_rate"`
	CPUWorkers int        `json:"cpu_workers"`
	GPURate    float64    `json:"gpu_rate"`
	Samples    int        `json:"samples"`
}

// BoundRow is the bound for one CPU overhead.
type BoundRow struct {
	OverheadUS float64 `json:"overhead_us"`
	Calibrated bool    `json:"calibrated,omitempty"` // the overhead that matches CPURate on AloneWorkers
	schedule.BoundResult
	OverBetter float64 `json:"over_better"` // Rate over the better processor alone
	OverCPU    float64 `json:"over_cpu"`
}

// Bound computes the bound (schedule.Bound) for each overhead, and for
// the one that matches o.CPURate when it is given.
func Bound(samples []schedule.Sample, o BoundOptions) (*BoundReport, error) {
	overheads := o.Overheads
	calibrated := -1
	if o.CPURate > 0 {
		calibrated = len(overheads)
		overheads = append(overheads[:len(overheads):len(overheads)], schedule.OverheadFor(samples, o.AloneWorkers, o.CPURate))
	}
	rep := &BoundReport{CPURate: o.CPURate, CPUWorkers: o.CPUWorkers, GPURate: o.GPURate, Samples: len(samples)}
	for i, oh := range overheads {
		b, err := schedule.Bound(samples, schedule.BoundConfig{CPUWorkers: o.CPUWorkers, CPUOverhead: oh, GPURate: o.GPURate})
		if err != nil {
			return nil, err
		}
		rep.Bounds = append(rep.Bounds, BoundRow{OverheadUS: float64(oh) / float64(time.Microsecond), Calibrated: i == calibrated, BoundResult: b,
			OverBetter: b.Rate / max(b.CPUAlone, b.GPUAlone), OverCPU: b.Rate / b.CPUAlone})
	}
	return rep, nil
}
