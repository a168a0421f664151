// Package schedule sends each query to the processor where it runs best
// and keeps CPU and GPU busy together, after section 9 of Ding, He, Yan and
// Suel's "Using graphics processors for high performance IR query
// processing".
//
// Cost model. Each query's CPU and GPU times are predicted from features
// known before it runs: the shortest, second-shortest and longest list
// lengths, the total postings and those outside the longest list, the
// number of terms and the mode. (Pruned OR skips most of the longest list:
// setting it apart cut MaxScore's held-out error from 0.97 to 0.59, BMW's
// from 0.47 to 0.43, on a 10^6-document synthetic index.) The model is linear in
// the logarithms (ln t = w . x), fitted by least squares on measured runs
// (`gpusearch bench fit` writes it as cost-model.json beside the index,
// with the CPU engine it was fitted for: by default bench fit times both
// MaxScore and Block-Max WAND OR and keeps the faster, which the server's
// engine=auto then runs); without one, DefaultModel's documented
// constants and the cpu engine are used.
//
// Queues. A query whose predicted GPU time is below (1-Margin) of its CPU
// time goes to the GPU queue; one whose CPU time is below (1-Margin) of its
// GPU time to the CPU queue; the rest wait in the "either" queue. An idle
// processor takes, in order: the most urgent job that prefers it (a job is
// urgent once it has waited Promote of its time to deadline), the cheapest
// job of its own queue (shortest job first minimises the mean delay;
// promotion keeps long jobs from starving), the oldest "either" job, and
// last the oldest job of the other processor's queue (work stealing).
//
// Policies. "hybrid" is the above. "cpu" and "gpu" send everything to one
// processor. "best" is the paper's third configuration: one query at a
// time, each on its predicted-faster processor. Without a GPU every policy
// but "gpu" runs everything on the CPU.
//
// The queue logic (Queues) is a pure data structure over a clock given by
// the caller, so that the discrete-event simulator (Simulate) and the real
// scheduler (Scheduler, one goroutine per CPU core and per GPU) share it.
//
// Batches. A GPU worker whose engine is a query.BatchEngine takes every
// job Queues gives it at once, up to Config.GPUBatch, and answers them in
// one call (the GPU engine runs their OR passes as one launch sequence).
// The simulator runs one job at a time on every processor.
package schedule
