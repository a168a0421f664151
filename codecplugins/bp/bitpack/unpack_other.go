//go:build !amd64 || purego

package bitpack

// unpackVAsm reports that there is no assembly unpacker on this build.
func unpackVAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// unpackVPrefixAsm reports that there is no assembly unpacker on this build.
func unpackVPrefixAsm(*[BlockLen]uint32, []byte, int, uint32) bool { return false }

// unpackHAsm reports that there is no assembly unpacker on this build.
func unpackHAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// DecodeVerticalBlockSIMD reports false: this build has no assembly, so
// its callers decode every block on their pure-Go path. On amd64 it
// decodes a whole bp128 block in one assembly call.
func DecodeVerticalBlockSIMD(*[BlockLen]uint32, []byte) bool { return false }

// DecodeVerticalBlockPrefixSIMD reports false: this build has no assembly.
// On amd64 it decodes a whole bp128 block into running sums in one
// assembly call.
func DecodeVerticalBlockPrefixSIMD(*[BlockLen]uint32, []byte, uint32) bool { return false }
