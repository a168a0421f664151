package main

import (
	"runtime/debug"
	"testing"
)

func TestApplyGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	for _, tt := range []struct {
		name, env string
		percent   int
		want      string
		wantGC    int // the collector's GOGC afterwards
	}{
		{"config", "", 400, "400", 400},
		{"environment wins", "250", 400, "250", 100},
		{"runtime default", "", 0, "100", 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.env)
			debug.SetGCPercent(100)
			if got := applyGC(tt.percent); got != tt.want {
				t.Errorf("applyGC(%d) = %q, want %q", tt.percent, got, tt.want)
			}
			if got := debug.SetGCPercent(100); got != tt.wantGC {
				t.Errorf("GOGC after applyGC(%d) = %d, want %d", tt.percent, got, tt.wantGC)
			}
		})
	}
}
