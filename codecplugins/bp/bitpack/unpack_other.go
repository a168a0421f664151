//go:build !amd64 || purego

package bitpack

// unpackVAsm reports that there is no assembly unpacker on this build.
func unpackVAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// unpackVPrefixAsm reports that there is no assembly unpacker on this build.
func unpackVPrefixAsm(*[BlockLen]uint32, []byte, int, uint32) bool { return false }

// unpackHAsm reports that there is no assembly unpacker on this build.
func unpackHAsm(*[BlockLen]uint32, []byte, int) bool { return false }
