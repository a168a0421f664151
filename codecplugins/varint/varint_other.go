//go:build !amd64 || purego

package varint

// svbAsm decodes nothing: there is no assembly on this build.
func svbAsm([]uint32, []byte, []byte) bool { return false }

// svbBlockAsm decodes nothing: there is no assembly on this build.
func svbBlockAsm(*[128]uint32, []byte) bool { return false }

// svbBlockPrefixAsm decodes nothing: there is no assembly on this build.
func svbBlockPrefixAsm(*[128]uint32, []byte, uint32) bool { return false }

// suAsm decodes nothing: there is no assembly on this build.
func suAsm([]uint32, []byte) (n, used int) { return 0, 0 }

// g8iuAsm decodes nothing: there is no assembly on this build.
func g8iuAsm([]uint32, []byte) (n, used int) { return 0, 0 }

// g8cuAsm decodes nothing: there is no assembly on this build.
func g8cuAsm(_ []uint32, _ []byte, i, p, cl int, carry uint64) (int, int, int, uint64) {
	return i, p, cl, carry
}
