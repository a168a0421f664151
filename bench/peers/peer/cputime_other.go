//go:build !linux

package peer

import "time"

// ThreadCPU returns 0: the thread CPU clock is read on Linux only, and the
// reports' CPU figures are then zero.
func ThreadCPU() time.Duration { return 0 }
