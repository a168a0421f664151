package gpubench

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUniformList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 1000, 1 << 16} {
		l := uniformList(rng, n, 1<<29)
		if len(l) != n {
			t.Fatalf("uniformList(%d) has %d values", n, len(l))
		}
		for i, x := range l {
			if x >= 1<<29 || (i > 0 && x <= l[i-1]) {
				t.Fatalf("uniformList(%d)[%d] = %d after %d: not distinct, sorted and below 2^29", n, i, x, l[max(i-1, 0)])
			}
		}
	}
	// Dense: every value of a small universe.
	if l := uniformList(rng, 64, 64); l[0] != 0 || l[63] != 63 {
		t.Errorf("uniformList(64 of 64) = %v, want 0..63", l)
	}
}

func TestDecodeReportPrint(t *testing.T) {
	rep := &DecodeReport{Bandwidth: Bandwidth{BoundGBs: 3000}}
	for _, lg := range []int{16, 17} {
		rep.Results = append(rep.Results,
			DecodeResult{Codec: "gpu-bp256", Output: "docids", Log2N: lg, GPUMis: 1000 * float64(lg), CPUMis: 900, Speedup: 10, BPI: 7.2, Fraction: 0.5},
			DecodeResult{Codec: "gpu-bp256", Output: "gaps", Log2N: lg, GPUMis: 2000, CPUMis: 950})
	}
	var b bytes.Buffer
	rep.Print(&b)
	out := b.String()
	for _, want := range []string{"2^16", "2^17", "gpu-bp256", "17000", "50%"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines != 4 {
		t.Errorf("table has %d lines, want 4 (title, header, two rows):\n%s", lines, out)
	}
}
