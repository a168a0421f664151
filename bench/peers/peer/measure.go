package peer

import (
	"runtime"
	"time"
)

// Measure answers every query for every Spec in the calling goroutine, locked
// to its OS thread: opts.Warmup untimed passes, then opts.Repeat timed ones
// (at least one). A query's wall and thread CPU times cover answer only;
// hits, which turns an answer into at most keep hits, runs untimed, on the
// last pass. In-process engines measure themselves with it.
func Measure[R any](queries []string, specs []Spec, opts SearchOptions,
	answer func(text string, s Spec) (R, error), hits func(r R, keep int) ([]Hit, error)) ([]Run, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	repeat := max(opts.Repeat, 1)
	n := len(queries)
	runs := make([]Run, len(specs))
	for si, s := range specs {
		for range opts.Warmup {
			for _, text := range queries {
				if _, err := answer(text, s); err != nil {
					return nil, err
				}
			}
		}
		run := Run{Spec: s, Wall: make([]time.Duration, repeat*n), CPU: make([]time.Duration, repeat*n), Hits: make([][]Hit, n)}
		for p := range repeat {
			for qi, text := range queries {
				c0 := ThreadCPU()
				t0 := time.Now()
				r, err := answer(text, s)
				run.Wall[p*n+qi] = time.Since(t0)
				run.CPU[p*n+qi] = ThreadCPU() - c0
				if err != nil {
					return nil, err
				}
				if p == repeat-1 {
					if run.Hits[qi], err = hits(r, opts.Keep); err != nil {
						return nil, err
					}
				}
			}
		}
		runs[si] = run
	}
	return runs, nil
}
