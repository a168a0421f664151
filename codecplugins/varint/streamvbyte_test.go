package varint

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestStreamVByteFormat(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"empty", nil, nil},
		{"one", []uint32{5}, []byte{0x00, 5}},
		{"lengths", []uint32{1, 0x100, 0x10000, 0x1000000}, []byte{0xE4, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1}},
		{"controls first", []uint32{0, 0, 0, 0, 0xFFFF}, []byte{0x00, 0x01, 0, 0, 0, 0, 0xFF, 0xFF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			codectest.Format(t, StreamVByte{}, tt.v, tt.want)
		})
	}
}

func TestStreamVByteGoldenSize(t *testing.T) { codectest.ClusteredSize(t, StreamVByte{}, 1280, 1647) }

func FuzzDecodeStreamVByte(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(StreamVByte{}, data, n)
		codectest.FuzzLevels(StreamVByte{}, data, n)
	})
}
