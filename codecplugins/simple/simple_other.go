//go:build !amd64 || purego

package simple

// decodeWords16Asm decodes nothing: there is no assembly on this build.
func decodeWords16Asm(_ []uint32, _ []byte, i, p int) (int, int) { return i, p }
