package codectest

import (
	"runtime"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// BenchDecode encodes values as a list of c's blocks and decodes those
// blocks in turn, each given exactly its own bytes; one op is one block.
// It reports the decoding speed in millions of integers a second (Mis),
// the list's size in bits per integer and, where the system has a thread
// CPU clock, the thread's CPU time per op (cpu-ns/op): on a loaded machine
// that leaves out the time the benchmark waited for a core, which ns/op
// counts. len(values) must be a positive multiple of c.BlockSize(), so
// that every op does equal work.
func BenchDecode(b *testing.B, c codecplugins.Codec, values []uint32) {
	bs := c.BlockSize()
	if len(values) == 0 || len(values)%bs != 0 {
		b.Fatalf("%s: BenchDecode of %d values, want a positive multiple of %d", c.Name(), len(values), bs)
	}
	data, off := EncodeList(c, values)
	blocks := len(off) - 1
	dst := make([]uint32, bs)
	b.SetBytes(int64(4 * bs))
	i := 0
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, cpuOK := threadCPU()
	for b.Loop() {
		if err := c.DecodeBlock(dst, data[off[i]:off[i+1]], bs); err != nil {
			b.Fatal(err)
		}
		if i++; i == blocks {
			i = 0
		}
	}
	if cpu1, ok := threadCPU(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.ReportMetric(float64(b.N)*float64(bs)/b.Elapsed().Seconds()/1e6, "Mis")
	b.ReportMetric(float64(len(data))*8/float64(len(values)), "bits/int")
}
