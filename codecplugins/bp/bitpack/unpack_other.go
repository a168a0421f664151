//go:build !amd64 || purego

package bitpack

import "github.com/gpusearch/gpusearch/codecplugins/internal/simd"

// unpackVAsm reports that there is no assembly unpacker on this build.
func unpackVAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// unpackVPrefixAsm reports that there is no assembly unpacker on this build.
func unpackVPrefixAsm(*[BlockLen]uint32, []byte, int, uint32) bool { return false }

// unpackHAsm reports that there is no assembly unpacker on this build.
func unpackHAsm(*[BlockLen]uint32, []byte, int) bool { return false }

// decodeVBlockAsm is never called on this build, whose only level is Go.
func decodeVBlockAsm(*[BlockLen]uint32, []byte, simd.Level) bool { return false }

// decodeVBlockPrefixAsm is never called on this build, whose only level is
// Go.
func decodeVBlockPrefixAsm(*[BlockLen]uint32, []byte, uint32, simd.Level) bool { return false }
