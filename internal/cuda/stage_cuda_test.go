//go:build cuda

package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"gorgonia.org/cu"
)

// openDevice opens device 0 on its first call; the whole test binary
// shares it.
var openDevice = sync.OnceValues(func() (*Device, error) { return Open(Options{}) })

// testDevice returns the test binary's device 0.
func testDevice(tb testing.TB) *Device {
	tb.Helper()
	d, err := openDevice()
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	return d
}

// TestReadStaged reads buffers of sizes around the staging thresholds
// (direct, one stage's worth, more than the largest stage) and compares
// every word with what was written.
func TestReadStaged(t *testing.T) {
	d := testDevice(t)
	for _, words := range []int{stagedMin/4 - 1, stagedMin / 4, 3<<20 + 5, stageMax/4 + 3<<20 + 1} {
		src := make([]uint32, words)
		r := rand.New(rand.NewPCG(uint64(words), 3))
		for i := range src {
			src[i] = r.Uint32()
		}
		b, err := Upload(d, src)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, words)
		err = Read(b, got)
		b.Free()
		if err != nil {
			t.Fatalf("%d words: %v", words, err)
		}
		if !slices.Equal(got, src) {
			t.Fatalf("%d words: read back differs", words)
		}
	}
	if d.stage.size == 0 || d.stage.size > stageMax {
		t.Errorf("stage is %d bytes after large reads, want 1..%d", d.stage.size, stageMax)
	}
}

// BenchmarkRead reads 8, 32 and 128 MiB into fresh Go memory, straight
// from the device (the driver's pageable path) and through the stage.
func BenchmarkRead(b *testing.B) {
	d := testDevice(b)
	for _, mib := range []int64{8, 32, 128} {
		buf, err := d.Alloc(mib << 20)
		if err != nil {
			b.Fatal(err)
		}
		for _, staged := range []bool{false, true} {
			b.Run(fmt.Sprintf("MiB=%d/staged=%v", mib, staged), func(b *testing.B) {
				b.SetBytes(buf.size)
				for b.Loop() {
					dst := make([]byte, buf.size)
					err := d.Do(func() error {
						if staged {
							return d.readInto(dst, buf.ptr)
						}
						return cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), buf.ptr, buf.size)
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		buf.Free()
	}
}
