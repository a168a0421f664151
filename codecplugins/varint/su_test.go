package varint

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func FuzzDecodeSU(f *testing.F) {
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x10}, 1)
	f.Add([]byte{1, 2, 3}, 3)
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(SU{}, data, n) })
}
