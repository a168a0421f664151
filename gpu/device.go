package gpu

import "time"

// DeviceOptions choose a GPU, bound its memory use and say how the host
// waits for it.
type DeviceOptions struct {
	Ordinal        int   // CUDA device ordinal
	MemoryBudgetMB int64 // device memory the process may allocate; 0 = the free memory at open
	// Wait is how the host thread waits for the device, one of CUDA's
	// context scheduling flags: "auto" ("" too) lets the driver choose (it
	// spins while there are fewer active contexts than cores), "spin"
	// polls on the core, "yield" polls and yields the core between polls,
	// and "block" sleeps until the device signals, which leaves the core
	// to other work at the price of a wake-up.
	Wait string
}

// DeviceInfo describes an open device.
type DeviceInfo struct {
	Ordinal           int    `json:"ordinal"`
	Name              string `json:"name"`
	ComputeCapability string `json:"compute_capability"`
	SMs               int    `json:"sms"`
	L2Bytes           int64  `json:"l2_bytes"`
	TotalBytes        int64  `json:"total_bytes"`
	BudgetBytes       int64  `json:"budget_bytes"`
	// PeakGBs is the theoretical memory bandwidth from the memory clock and
	// bus width, in GB/s; measured copy bandwidth is the useful bound.
	PeakGBs float64 `json:"peak_gbs"`
	Driver  int     `json:"driver_version"`
}

// DecodeJob is one decode launch: Count blocks of Col, either the range
// starting at First or, when Sel is not nil, the block ids in Sel (Count
// uint32s), written to Out as rows of Col's block size.
type DecodeJob struct {
	Col    *Column
	First  int
	Count  int
	Sel    *Buffer
	Out    *Buffer
	Output Output
}

// Resident is an index uploaded to a device: its docid and frequency
// columns, and the skip table's last-docid and block-max columns.
type Resident struct {
	DocIDs, Freqs *Column
	LastDocIDs    *Buffer // uint32 per block
	BlockMax      *Buffer // float32 per block
}

// Free releases the resident index's device memory.
func (r *Resident) Free() error {
	var first error
	for _, f := range []func() error{r.DocIDs.Free, r.Freqs.Free, r.LastDocIDs.Free, r.BlockMax.Free} {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DeviceUsage accounts for a query engine's runs on its device: each run
// is one launch sequence of a batch or query pass, ending in the download
// of its results.
type DeviceUsage struct {
	Runs int64
	// Held is the host's time inside runs.
	Held time.Duration
	// Busy is the device's time from each run's first operation to the
	// start of its last download (CUDA events): kernels, copies, and any
	// gaps while the host was late to queue work. Held - Busy is the host's
	// share: queueing launches, waiting to notice the end, and the copy.
	// Runs on different streams overlap, so Busy (and Held) can exceed the
	// wall time.
	Busy time.Duration
}
