package main

import (
	"os"
	"runtime/debug"
	"strconv"
)

// applyGC sets the garbage collector's GOGC to percent (server.gc_percent)
// unless the GOGC environment variable is set or percent is 0, and
// returns the setting in force: the variable's value, or the percent.
func applyGC(percent int) string {
	if env := os.Getenv("GOGC"); env != "" {
		return env
	}
	if percent > 0 {
		debug.SetGCPercent(percent)
		return strconv.Itoa(percent)
	}
	return "100"
}
