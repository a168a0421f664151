//go:build !linux

package codectest

// threadCPU reports that this build has no per-thread CPU clock.
func threadCPU() (int64, bool) { return 0, false }
