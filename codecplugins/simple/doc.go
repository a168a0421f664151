// Package simple holds the word-aligned codecs simple9 (Anh and Moffat) and
// simple16 (Zhang, Long and Suel). Each registers itself in init.
//
//go:generate go run ./internal/gen -o simple_gen.go
package simple
