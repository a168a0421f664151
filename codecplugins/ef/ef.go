package ef

import (
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/internal/bitio"
)

const blockSize = 128

// maxL is the largest low width a valid block uses.
const maxL = 31

// EliasFano encodes a block's prefix sums as one Elias-Fano sequence
// behind a header byte holding the low width (see the package doc).
type EliasFano struct{}

func init() { codecplugins.Register(EliasFano{}) }

// Name implements codecplugins.Codec.
func (EliasFano) Name() string { return "elias-fano" }

// BlockSize implements codecplugins.Codec.
func (EliasFano) BlockSize() int { return blockSize }

// AppendBlock implements codecplugins.Codec.
func (EliasFano) AppendBlock(dst []byte, v []uint32) []byte {
	if len(v) == 0 {
		return dst
	}
	var u uint64
	for _, x := range v {
		u += uint64(x)
	}
	l := lowWidth(u, len(v))
	w := bitio.NewWriter(append(dst, byte(l)))
	writeSeq(&w, v, l)
	return w.Finish()
}

// DecodeBlock implements codecplugins.Codec.
func (EliasFano) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n == 0 {
		return nil
	}
	if len(src) == 0 {
		return codecplugins.Corrupt("elias-fano", 0, "missing header")
	}
	l := uint(src[0])
	if l > maxL {
		return codecplugins.Corrupt("elias-fano", 0, "low width out of range")
	}
	if end, reason := readSeq(dst[:n], src[1:], 0, l); reason != "" {
		return codecplugins.Corrupt("elias-fano", 1+int(end>>3), reason)
	}
	return nil
}
