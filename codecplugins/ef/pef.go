package ef

import (
	"math"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/internal/bitio"
)

// Partition header fields, in stream order (see the package doc).
const (
	lenBits   = 7 // m-1
	kindBits  = 1
	lBits     = 5 // EF partitions: low width
	widthBits = 6 // run partitions: bit width of the repeated value

	kindEF  = 0
	kindRun = 1

	efHeaderBits  = lenBits + kindBits + lBits
	runHeaderBits = lenBits + kindBits + widthBits
)

// PartitionedEliasFano splits each block into the partitions that minimise
// its size, each an Elias-Fano sequence or a run of one repeated value
// (see the package doc).
type PartitionedEliasFano struct{}

func init() { codecplugins.Register(PartitionedEliasFano{}) }

// Name implements codecplugins.Codec.
func (PartitionedEliasFano) Name() string { return "partitioned-elias-fano" }

// BlockSize implements codecplugins.Codec.
func (PartitionedEliasFano) BlockSize() int { return blockSize }

// AppendBlock implements codecplugins.Codec.
func (PartitionedEliasFano) AppendBlock(dst []byte, v []uint32) []byte {
	if len(v) == 0 {
		return dst
	}
	w := bitio.NewWriter(dst)
	start := 0
	for _, pt := range partition(v) {
		seg := v[start:pt.end]
		w.Write(uint64(len(seg)-1), lenBits)
		if pt.run {
			width := uint(bits.Len32(seg[0]))
			w.Write(kindRun, kindBits)
			w.Write(uint64(width), widthBits)
			w.Write(uint64(seg[0]), width)
		} else {
			var u uint64
			for _, x := range seg {
				u += uint64(x)
			}
			l := lowWidth(u, len(seg))
			w.Write(kindEF, kindBits)
			w.Write(uint64(l), lBits)
			writeSeq(&w, seg, l)
		}
		start = pt.end
	}
	return w.Finish()
}

// part is one partition chosen by partition: it ends before v[end].
type part struct {
	end int
	run bool
}

// partition returns the split of v (len(v) <= blockSize) into partitions
// with the smallest total encoded size, by dynamic programming over every
// split point: cost[j] is the best size of v[:j], and the last partition
// v[i:j] of that best split is priced in O(1) from the prefix sums.
func partition(v []uint32) []part {
	n := len(v)
	var sum [blockSize + 1]uint64 // sum[i] = v[0] + ... + v[i-1]
	for i, x := range v {
		sum[i+1] = sum[i] + uint64(x)
	}
	var runEnd [blockSize]int // v[i:runEnd[i]] all equal v[i], maximal
	for i := n - 1; i >= 0; i-- {
		runEnd[i] = i + 1
		if i+1 < n && v[i+1] == v[i] {
			runEnd[i] = runEnd[i+1]
		}
	}
	var (
		cost  [blockSize + 1]uint64
		from  [blockSize + 1]int
		asRun [blockSize + 1]bool
	)
	for j := 1; j <= n; j++ {
		cost[j] = math.MaxUint64
		for i := range j {
			u, m := sum[j]-sum[i], j-i
			if c := cost[i] + efHeaderBits + seqBits(u, m, lowWidth(u, m)); c < cost[j] {
				cost[j], from[j], asRun[j] = c, i, false
			}
			if j <= runEnd[i] {
				if c := cost[i] + runHeaderBits + uint64(bits.Len32(v[i])); c < cost[j] {
					cost[j], from[j], asRun[j] = c, i, true
				}
			}
		}
	}
	k := 0
	for j := n; j > 0; j = from[j] {
		k++
	}
	parts := make([]part, k)
	for j := n; j > 0; j = from[j] {
		k--
		parts[k] = part{end: j, run: asRun[j]}
	}
	return parts
}

// DecodeBlock implements codecplugins.Codec.
func (PartitionedEliasFano) DecodeBlock(dst []uint32, src []byte, n int) error {
	const name = "partitioned-elias-fano"
	p := uint(0)
	for i := 0; i < n; {
		h := bitio.Window(src, p)
		m := int(h&(1<<lenBits-1)) + 1
		if m > n-i {
			return codecplugins.Corrupt(name, int(p>>3), "partition longer than the block")
		}
		h >>= lenBits
		if h&1 == kindEF {
			l := uint(h>>kindBits) & (1<<lBits - 1)
			end, reason := readSeq(dst[i:i+m], src, p+efHeaderBits, l)
			if reason != "" {
				return codecplugins.Corrupt(name, int(end>>3), reason)
			}
			p = end
		} else {
			width := uint(h>>kindBits) & (1<<widthBits - 1)
			if width > 32 {
				return codecplugins.Corrupt(name, int(p>>3), "run value wider than 32 bits")
			}
			c := uint32(bitio.Window(src, p+runHeaderBits) & (1<<width - 1))
			for k := i; k < i+m; k++ {
				dst[k] = c
			}
			p += runHeaderBits + width
		}
		i += m
	}
	if p > 8*uint(len(src)) {
		return codecplugins.Corrupt(name, len(src), "truncated bit stream")
	}
	return nil
}
