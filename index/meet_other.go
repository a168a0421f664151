//go:build !amd64 || purego

package index

// haveWindows is false: there is no assembly stepper on this build.
var haveWindows = false

// cpuWindows is false: nothing here needs a CPU feature.
const cpuWindows = false

// windows is the assembly stepper of meet_amd64.go where there is one;
// here it never moves, and Meet's scalar loop does all the work.
func windows(_, _ []uint32, i, j int) (ri, rj, lane int) { return i, j, -1 }
