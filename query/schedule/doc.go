// Package schedule sends each query to the processor where it runs best
// and keeps CPU and GPU busy together, after section 9 of Ding, He, Yan and
// Suel's "Using graphics processors for high performance IR query
// processing".
//
// Cost model. Each query's CPU and GPU times are predicted from features
// known before it runs: the shortest, second-shortest and longest list
// lengths, the total postings and those outside the longest list, the
// number of terms and the mode. (Pruned
// OR skips most of the longest list: setting it apart cut MaxScore's
// held-out error from 0.97 to 0.59, BMW's from 0.47 to 0.43, on a
// 10^6-document synthetic index.) Each processor's model takes one of two
// forms, fitted by least squares on measured runs, and Fit keeps the form
// with the lower held-out error: log-linear (ln t = w . x over log
// lengths: the pruned CPU engines) or linear (t = w . x over lengths: the
// GPU, whose cost in a batch is a fixed share plus a cost per posting).
// `gpusearch bench fit` times the GPU in batches of gpu.batch copies of
// each query, as the scheduler uses it (one query at a time, the GPU's
// cost is mostly its launch chain and says little about its throughput),
// and writes the model as cost-model.json beside the index. By default it
// times four CPU engines (term-at-a-time over dense accumulators, MaxScore,
// WAND and Block-Max WAND) and fits a model for each: no one of them wins
// everywhere (term-at-a-time is 2-3x faster than Block-Max WAND on queries
// of a few thousand postings, and as much slower on millions), so a CPU
// worker runs each query on the engine predicted fastest for it (Choice),
// and the query's CPU cost is that engine's; the engine fastest over all
// the fitting queries is named as the fallback, and runs every query when
// the choice saves no time on the held-out ones. When the fitting queries
// come in several modes, each processor's (and each engine's) model is
// also fitted per mode, and the models by mode are kept when they predict
// the held-out queries better (Linear.ByMode): a mode indicator only
// shifts a cost, while AND's cost follows its shortest lists and pruned
// OR's the others than the longest (on an AND and OR mix, the CPU's
// held-out error fell from 0.86 to 0.51). Without a fitted model,
// DefaultModel's documented constants and the cpu engine are used.
//
// Queues. A query whose predicted GPU time is below (1-Margin) of its CPU
// time goes to the GPU queue; one whose CPU time is below (1-Margin) of its
// GPU time to the CPU queue; the rest wait in the "either" queue. An idle
// processor takes, in order: the most urgent job that prefers it (a job is
// urgent once it has waited Promote of its time to deadline); a job of its
// own queue: on the CPU the cheapest (shortest job first minimises the
// mean delay; promotion keeps long jobs from starving), on the GPU the one
// it is best suited for, the largest ratio of CPU to GPU time; the oldest
// "either" job; and last, stealing, the job of the other processor's queue
// it is best suited for (the CPU steals the job with the smallest CPU/GPU
// ratio, the GPU the largest). The paper leaves open which job a processor
// steals and the order within its own queue beyond "cost, deadline and
// affinity"; taking the oldest (our first version) gave the CPU workers a
// random mix of the GPU's queue, heavy queries included, so that under
// load each processor ran average queries instead of those it is best at
// (docs/scheduling.md measures both).
//
// Policies. "hybrid" is the above. "cpu" and "gpu" send everything to one
// processor. "best" is the paper's third configuration: one query at a
// time, each on its predicted-faster processor. Without a GPU every policy
// but "gpu" runs everything on the CPU.
//
// The queue logic (Queues) is a pure data structure over a clock given by
// the caller, so that the discrete-event simulator (Simulate) and the real
// scheduler (Scheduler: a goroutine per CPU worker and one or more per
// GPU, Config.GPUWorkers) share it. Callers push their jobs onto a
// lock-free inbox that workers move into the Queues whenever they hold the
// scheduler's lock, so that at high rates callers do not queue for that
// lock. The scheduler runs a CPU worker per core, but under hybrid and
// best leaves a core to each GPU worker and two more (DefaultCPUWorkers):
// a GPU worker's host side (planning a batch, launching, reading back)
// otherwise waits behind CPU queries, and the GPU idles. gpusearch serve
// asks for fewer beside a GPU (one per 16 cores): over HTTP, parsing
// requests and writing answers bound the rate long before the GPU does,
// and each CPU worker takes a core from them (docs/server.md).
//
// Bound. Bound computes, from the measured costs of a mix of queries, the
// highest rate any split of the mix between the CPU workers and a GPU
// could sustain (the linear program's optimum: the queries cheapest on the
// CPU relative to the GPU go to the CPU until both are equally busy), to
// tell how far a policy is from what the processors allow
// (`gpusearch bench bound`; docs/scheduling.md).
//
// Batches. A GPU worker whose engine is a query.BatchEngine takes every
// job Queues gives it at once, up to Config.GPUBatch, and answers them in
// one call (the GPU engine runs their OR passes as one launch sequence;
// it prepares and finishes a batch on the host outside its device run, so
// a second worker per GPU works while the first one's batch runs).
// With Config.Window (gpu.window, served), a GPU worker that holds
// fewer than GPUBatch jobs waits for more until its oldest has waited the
// window or the batch is full (the Search that fills it wakes the
// worker), while the other workers of that GPU take nothing, so that
// requests arriving close together run as one batch even when the GPU
// is idle; under load the oldest job has already waited and nothing
// waits longer. NewBatcher is such a scheduler over one GPU engine
// alone: what serves engine=gpu to many callers, and SearchBatch queues
// a caller's queries together (POST /msearch).
// The simulator (SimConfig) models such batches as a fixed cost per call
// plus each job's share. A CPU worker runs one job at a time; while more
// jobs wait than there are CPU workers it holds up to Config.CPUAhead
// more, and with a job in hand it takes the lock again only when the lock
// is free (TryLock), so that it never waits for the lock while it has
// work. On the H100 machine, once the load generator stopped sharing one
// context among its queries, the lock seemed what limited hybrid on AND
// queries, and Queues picks in O(1) and a deeper CPUAhead moved it; a
// dispatcher goroutine owning the queues in place of the lock did no
// better, and a trace showed why: a worker woken by the lock's release
// then waited for a core behind the callers. Cheaper
// callers (FeaturesOf with no allocation and a smaller frame, a query's
// context without a timer) are what moved it next (docs/scheduling.md).
package schedule
