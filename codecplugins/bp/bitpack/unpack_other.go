//go:build !amd64 || purego

package bitpack

// unpackVAsm reports that there is no assembly unpacker on this build.
func unpackVAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// unpackVPrefixAsm reports that there is no assembly unpacker on this build.
func unpackVPrefixAsm(*[BlockLen]uint32, []byte, int, uint32) bool { return false }

// unpackHAsm reports that there is no assembly unpacker on this build.
func unpackHAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// decodeVBlockAsm reports that there is no assembly decoder on this build.
func decodeVBlockAsm(*[BlockLen]uint32, []byte) (ok, done bool) { return false, false }

// decodeVBlockPrefixAsm reports that there is no assembly decoder on this
// build.
func decodeVBlockPrefixAsm(*[BlockLen]uint32, []byte, uint32) (ok, done bool) {
	return false, false
}
