package rice

import "github.com/gpusearch/gpusearch/codecplugins"

// OptRice is Golomb-Rice coding whose per-block parameter k is the one, of
// all 32, that gives the smallest encoding. It shares rice's format and
// decoder.
type OptRice struct{}

func init() { codecplugins.Register(OptRice{}) }

// Name implements codecplugins.Codec.
func (OptRice) Name() string { return "optrice" }

// BlockSize implements codecplugins.Codec.
func (OptRice) BlockSize() int { return blockSize }

// AppendBlock implements codecplugins.Codec.
func (OptRice) AppendBlock(dst []byte, v []uint32) []byte {
	return encode(dst, v, optK(v))
}

// DecodeBlock implements codecplugins.Codec.
func (OptRice) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decode("optrice", dst, src, n)
}

// optK returns the k in 0..maxK whose stream is shortest, the lowest on ties.
func optK(v []uint32) uint {
	best, bestBits := uint(0), streamBits(v, 0)
	for k := uint(1); k <= maxK; k++ {
		if b := streamBits(v, k); b < bestBits {
			best, bestBits = k, b
		}
	}
	return best
}
