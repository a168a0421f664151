// Package costs holds the benchmarks of the scheduler's cost model behind
// gpusearch bench fit, simulate and bound: Fit times every query on the
// CPU engines (and a GPU) and fits the model; Simulate replays the
// measured costs through the scheduler's queues in simulated time; Bound
// computes the highest rate any CPU/GPU split of them could sustain. The
// measured costs travel as samples files (ReadSamples).
package costs
