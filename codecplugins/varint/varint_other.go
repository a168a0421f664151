//go:build !amd64 || purego

package varint

// svbAsm decodes nothing: there is no assembly on this build.
func svbAsm([]uint32, []byte, []byte) bool { return false }
