package simdbench

import (
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// simdCodecs are the codecs with an assembly decoder, directly or, for
// the frame-based and split Rice codecs, through package bitpack's
// vertical and horizontal unpackers; rice and optrice, scalar at every
// level, are the split codecs' baseline (the first paper's Table 2).
var simdCodecs = []string{"bp128", "newpfor", "optpfor", "newpfor-hor", "optpfor-hor",
	"rice", "optrice", "rice-hor", "rice-ver", "optrice-hor", "optrice-ver",
	"streamvbyte", "varint-SU", "varint-G8IU", "varint-G8CU"}

// synthetic builds the first paper's four synthetic sets once per process,
// as `gpusearch bench codecs` does by default: seed 1, 2^16 values sparse,
// 2^25 dense.
var synthetic = sync.OnceValue(func() []bench.Dataset {
	return bench.SyntheticDatasets(1, 1<<16, 1<<25)
})

// BenchmarkSIMD decodes each synthetic set's list block by block, as the
// index cursors do (codectest.BenchDecode), with each of simdCodecs at
// every SIMD level this CPU has: scalar Go, SSE and AVX2 side by side.
func BenchmarkSIMD(b *testing.B) {
	for _, name := range simdCodecs {
		c, err := codecplugins.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, ds := range synthetic() {
			for _, lv := range simd.Levels() {
				b.Run(name+"/"+ds.Name+"/"+lv.String(), func(b *testing.B) {
					defer simd.Set(simd.Set(lv))
					codectest.BenchDecode(b, c, ds.Lists[0])
				})
			}
		}
	}
}
