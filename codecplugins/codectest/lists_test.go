package codectest

import (
	"slices"
	"testing"
)

// bytesCodec stores each value as one byte, in blocks of three.
type bytesCodec struct{}

func (bytesCodec) Name() string   { return "bytes" }
func (bytesCodec) BlockSize() int { return 3 }
func (bytesCodec) AppendBlock(dst []byte, v []uint32) []byte {
	for _, x := range v {
		dst = append(dst, byte(x))
	}
	return dst
}
func (bytesCodec) DecodeBlock(dst []uint32, src []byte, n int) error {
	for i := range n {
		dst[i] = uint32(src[i])
	}
	return nil
}

func TestEncodeList(t *testing.T) {
	tests := []struct {
		name     string
		v        []uint32
		wantData []byte
		wantOff  []int
	}{
		{"empty", nil, nil, []int{0}},
		{"partial", []uint32{1, 2}, []byte{1, 2}, []int{0, 2}},
		{"whole", []uint32{1, 2, 3}, []byte{1, 2, 3}, []int{0, 3}},
		{"tail", []uint32{1, 2, 3, 4, 5, 6, 7}, []byte{1, 2, 3, 4, 5, 6, 7}, []int{0, 3, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, off := EncodeList(bytesCodec{}, tt.v)
			if !slices.Equal(data, tt.wantData) || !slices.Equal(off, tt.wantOff) {
				t.Errorf("EncodeList(%v) = %v, %v, want %v, %v", tt.v, data, off, tt.wantData, tt.wantOff)
			}
		})
	}
}

// TestGenerators pins the start of each generator's output: the families'
// golden sizes depend on it.
func TestGenerators(t *testing.T) {
	tests := []struct {
		name      string
		got, want []uint32
	}{
		{"ClusteredGaps(8, 42)", ClusteredGaps(8, 42), []uint32{5, 0, 2, 1, 0, 0, 2, 1}},
		{"GeometricGaps(8, 12, 7)", GeometricGaps(8, 12, 7), []uint32{9, 36, 13, 2, 11, 7, 22, 14}},
		{"GoldenBlocks(8)[0]", GoldenBlocks(8)[0].V, []uint32{4, 2, 13, 13, 11, 16, 6, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
			}
		})
	}
}
