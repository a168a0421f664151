// Package simdbench holds only a benchmark: the codecs that have assembly
// decoders, at every SIMD level this CPU has, on the first paper's
// synthetic sets (package bench builds them). It lives apart from the codec
// packages so that their tests do not depend on package bench and all it
// imports.
//
//	go test -run XXX -bench SIMD ./internal/simdbench
package simdbench
