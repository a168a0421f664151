//go:build !amd64 || purego

package simd

// detect returns Go: there is assembly for amd64 only, and the purego tag
// turns it off there too.
func detect() Level { return Go }
