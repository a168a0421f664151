package cuda

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gpusearch/gpusearch/query"
)

// Options choose a GPU, bound its memory use and say how the host waits
// for it.
type Options struct {
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

// Info describes an open device.
type Info struct {
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

// ErrNoCUDA is returned by Open in a build without the cuda tag. It wraps
// query.ErrNoGPU, so that callers can test for a missing GPU without
// importing the GPU packages.
var ErrNoCUDA error = noCUDA{}

type noCUDA struct{}

func (noCUDA) Error() string { return "gpu: built without CUDA support (build with -tags cuda)" }
func (noCUDA) Unwrap() error { return query.ErrNoGPU }

// ErrNoDevice is returned when the CUDA driver finds no usable device.
var ErrNoDevice = errors.New("gpu: no CUDA device")

// ErrOutOfMemory is returned when an allocation would pass the device's
// memory budget or the device has no memory left.
var ErrOutOfMemory = errors.New("gpu: out of device memory")

// ErrBadPTX is returned when the kernels cannot be loaded: no PTX, PTX the
// driver rejects, or a kernel missing from it.
var ErrBadPTX = errors.New("gpu: cannot load kernels")

// ErrClosed is returned by a Device after Close.
var ErrClosed = errors.New("gpu: device closed")

// PTXDirEnv names the environment variable that, when set, makes Load
// read <name>.ptx from that directory instead of the embedded copy.
const PTXDirEnv = "GPUSEARCH_PTX_DIR"

// readPTX returns kernels/<name>.ptx from fsys (a package's embedded
// kernels), or <name>.ptx from $GPUSEARCH_PTX_DIR when set, and where it
// came from.
func readPTX(fsys fs.FS, name string) (ptx []byte, from string, err error) {
	if dir := os.Getenv(PTXDirEnv); dir != "" {
		from = filepath.Join(dir, name+".ptx")
		ptx, err = os.ReadFile(from)
	} else {
		from = "embedded kernels/" + name + ".ptx"
		ptx, err = fs.ReadFile(fsys, "kernels/"+name+".ptx")
	}
	if err != nil {
		return nil, from, fmt.Errorf("%w: %v (run make ptx, or set %s)", ErrBadPTX, err, PTXDirEnv)
	}
	return ptx, from, nil
}
