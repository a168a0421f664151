//go:build libstreamvbyte && cgo

package libsvb

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
	"github.com/gpusearch/gpusearch/codecplugins/varint"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// blocks encodes values with the Go streamvbyte encoder and returns the
// bytes and the block offsets in the C decoder's form.
func blocks(values []uint32) ([]byte, []int64) {
	data, off := codectest.EncodeList(varint.StreamVByte{}, values)
	// The C decoder may load 16 bytes at a time up to the last block's
	// end: keep those loads inside the buffer.
	data = append(data, make([]byte, 16)...)
	o := make([]int64, len(off))
	for i, x := range off {
		o[i] = int64(x)
	}
	return data, o
}

// TestSameValues decodes every block of the synthetic sparse sets with
// libstreamvbyte and requires the values the Go encoder was given.
func TestSameValues(t *testing.T) {
	for _, ds := range bench.SyntheticDatasets(1, 1<<16, 1<<16) {
		v := ds.Lists[0]
		data, off := blocks(v)
		dst := make([]uint32, 128)
		for i := range len(off) - 1 {
			DecodeBlocks(dst, data[off[i]:], []int64{0, off[i+1] - off[i]}, 128, 1)
			if !slices.Equal(dst, v[128*i:128*i+128]) {
				t.Fatalf("%s: block %d: libstreamvbyte decodes other values", ds.Name, i)
			}
		}
	}
}

// BenchmarkDecode decodes the synthetic sets block by block, one op one
// 128-value block, with libstreamvbyte and with the Go package at every
// SIMD level, in the same run.
func BenchmarkDecode(b *testing.B) {
	for _, ds := range bench.SyntheticDatasets(1, 1<<16, 1<<25) {
		v := ds.Lists[0]
		data, off := blocks(v)
		b.Run(ds.Name+"/libstreamvbyte", func(b *testing.B) {
			dst := make([]uint32, 128)
			b.SetBytes(4 * 128)
			// The thread's CPU time, as codectest.BenchDecode reports it.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var t0, t1 unix.Timespec
			cpuErr := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t0)
			b.ResetTimer()
			DecodeBlocks(dst, data, off, 128, b.N)
			b.StopTimer()
			if cpuErr == nil && unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t1) == nil {
				b.ReportMetric(float64(t1.Nano()-t0.Nano())/float64(b.N), "cpu-ns/op")
			}
			b.ReportMetric(float64(b.N)*128/b.Elapsed().Seconds()/1e6, "Mis")
		})
		for _, lv := range simd.Levels() {
			b.Run(ds.Name+"/go-"+lv.String(), func(b *testing.B) {
				defer simd.Set(simd.Set(lv))
				codectest.BenchDecode(b, varint.StreamVByte{}, v)
			})
		}
	}
}
