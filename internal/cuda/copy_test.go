package cuda

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestCopyParallel(t *testing.T) {
	for _, n := range []int{0, 1, copyShare - 1, copyShare, 2*copyShare + 7, 9*copyShare + 3} {
		src := make([]byte, n)
		r := rand.New(rand.NewPCG(uint64(n), 1))
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		dst := make([]byte, n+1)
		dst[n] = 0xAB
		copyParallel(dst[:n], src)
		if !bytes.Equal(dst[:n], src) {
			t.Errorf("n=%d: copy differs", n)
		}
		if dst[n] != 0xAB {
			t.Errorf("n=%d: wrote past the end", n)
		}
	}
}
