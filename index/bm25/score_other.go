//go:build !amd64 || purego

package bm25

// scoreBlockAsm scores nothing off amd64: ScoreBlock's loop does it all.
func scoreBlockAsm([]float32, float32, []uint32, []uint32, []float32, float32) int { return 0 }
