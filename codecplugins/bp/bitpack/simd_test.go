package bitpack

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gpusearch/gpusearch/internal/gentest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// TestUnpackVerticalLevels decodes random bytes, read as a vertical block of
// every width, at every SIMD level the CPU has, and requires the pure-Go
// unpacker's values; any bytes are a valid block, so random input covers
// the packed data and the garbage cases alike. The input is cut to exactly
// VerticalLen(b) bytes, so a read past it would fault under -race or the
// checked-pointer runtime.
func TestUnpackVerticalLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lv := range simd.Levels()[1:] {
		for b := 0; b <= MaxWidth; b++ {
			t.Run(fmt.Sprintf("%s/b=%d", lv, b), func(t *testing.T) {
				for range 20 {
					src := make([]byte, VerticalLen(b))
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					var want, got [BlockLen]uint32
					for i := range got {
						got[i] = 0xDEADBEEF
					}
					simd.Run(simd.Go, func() { UnpackVertical(&want, src, b) })
					simd.Run(lv, func() { UnpackVertical(&got, src, b) })
					if got != want {
						for i := range got {
							if got[i] != want[i] {
								t.Fatalf("value %d = %#x, pure Go gives %#x", i, got[i], want[i])
							}
						}
					}
				}
			})
		}
	}
}

// TestPrefixSumLevels checks PrefixSum at every level against a plain
// loop, on random values from bases that make the sums wrap and not.
func TestPrefixSumLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, lv := range simd.Levels() {
		t.Run(lv.String(), func(t *testing.T) {
			for _, base := range []uint32{0, 7, rng.Uint32(), 0xFFFFFFF0} {
				for _, bits := range []int{0, 3, 17, 32} {
					var got, want [BlockLen]uint32
					sum := base
					for i := range got {
						got[i] = uint32(rng.Uint64() & (1<<bits - 1))
						sum += got[i]
						want[i] = sum
					}
					simd.Run(lv, func() { PrefixSum(&got, base) })
					if got != want {
						t.Fatalf("base %d, %d-bit values: %v, want %v", base, bits, got, want)
					}
				}
			}
		})
	}
}

// TestUnpackVerticalPrefixLevels checks the running sums of every level
// against the pure-Go unpacker followed by a plain loop, from bases near 0
// and near 2^32 so that the sums wrap.
func TestUnpackVerticalPrefixLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, lv := range simd.Levels() {
		for b := 0; b <= MaxWidth; b++ {
			t.Run(fmt.Sprintf("%s/b=%d", lv, b), func(t *testing.T) {
				for _, base := range []uint32{0, 7, rng.Uint32(), 0xFFFFFFF0} {
					src := make([]byte, VerticalLen(b))
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					var want, got [BlockLen]uint32
					simd.Run(simd.Go, func() { UnpackVertical(&want, src, b) })
					sum := base
					for i := range want {
						sum += want[i]
						want[i] = sum
					}
					simd.Run(lv, func() { UnpackVerticalPrefix(&got, src, b, base) })
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("base %d: sum %d = %#x, want %#x", base, i, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

// TestUnpackVerticalPatchedPrefixLevels checks UnpackVerticalPatchedPrefix
// at every level against the pure-Go unpacker, the shifted patch added and
// the sums taken in plain loops, with sparse and dense patches and bases
// that make the sums wrap and not.
func TestUnpackVerticalPatchedPrefixLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, lv := range simd.Levels() {
		for b := 0; b <= MaxWidth; b++ {
			t.Run(fmt.Sprintf("%s/b=%d", lv, b), func(t *testing.T) {
				for _, every := range []int{1, 7, 128} {
					src := make([]byte, VerticalLen(b))
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					var patch, want, got [BlockLen]uint32
					for i := 0; i < BlockLen; i += 1 + rng.IntN(every) {
						patch[i] = rng.Uint32()
					}
					simd.Run(simd.Go, func() { UnpackVertical(&want, src, b) })
					for _, base := range []uint32{0, rng.Uint32(), 0xFFFFFFF0} {
						sum := base
						var sums [BlockLen]uint32
						for i := range want {
							sum += want[i] + patch[i]<<b
							sums[i] = sum
						}
						simd.Run(lv, func() { UnpackVerticalPatchedPrefix(&got, src, b, &patch, base) })
						if got != sums {
							t.Fatalf("patched every %d, sums from %d: %v, want %v", every, base, got, sums)
						}
						if lv != simd.Go {
							got = [BlockLen]uint32{}
							UnpackVerticalPatchedPrefixSIMD(&got, src, b, &patch, base, lv)
							if got != sums {
								t.Fatalf("one call, patched every %d, sums from %d: %v, want %v", every, base, got, sums)
							}
						}
					}
				}
			})
		}
	}
}

// TestUnpackVerticalShortSrc requires every level to panic, not read on,
// when src is shorter than the block: the precondition is checked in Go
// before the assembly runs.
func TestUnpackVerticalShortSrc(t *testing.T) {
	for _, lv := range simd.Levels() {
		t.Run(lv.String(), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("UnpackVertical of a short src did not panic")
				}
			}()
			var dst [BlockLen]uint32
			simd.Run(lv, func() { UnpackVertical(&dst, make([]byte, VerticalLen(5)-1), 5) })
		})
		t.Run(lv.String()+"/prefix", func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("UnpackVerticalPrefix of a short src did not panic")
				}
			}()
			var dst [BlockLen]uint32
			simd.Run(lv, func() { UnpackVerticalPrefix(&dst, make([]byte, VerticalLen(5)-1), 5, 0) })
		})
	}
}

// TestSIMDGeneratedUpToDate requires the assembly, its stubs and its
// tables to be what gensimd writes today.
func TestSIMDGeneratedUpToDate(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the assembly is for amd64")
	}
	gentest.UpToDateFiles(t, "../internal/gensimd", map[string]string{
		"out":   "unpack_amd64.s",
		"stubs": "unpack_amd64_stubs.go",
	})
}

func BenchmarkUnpackVertical(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lv := range simd.Levels() {
		for _, w := range []int{1, 4, 8, 13, 32} {
			v := randomValues(rng, BlockLen, w)
			enc := AppendVertical(nil, (*[BlockLen]uint32)(v), w)
			b.Run(fmt.Sprintf("%s/b=%d", lv, w), func(b *testing.B) {
				defer simd.Set(simd.Set(lv))
				var dst [BlockLen]uint32
				b.SetBytes(4 * BlockLen)
				for b.Loop() {
					UnpackVertical(&dst, enc, w)
				}
				b.ReportMetric(float64(b.N)*BlockLen/b.Elapsed().Seconds()/1e6, "Mis")
			})
			b.Run(fmt.Sprintf("%s/prefix/b=%d", lv, w), func(b *testing.B) {
				defer simd.Set(simd.Set(lv))
				var dst [BlockLen]uint32
				b.SetBytes(4 * BlockLen)
				for b.Loop() {
					UnpackVerticalPrefix(&dst, enc, w, 1)
				}
				b.ReportMetric(float64(b.N)*BlockLen/b.Elapsed().Seconds()/1e6, "Mis")
			})
		}
	}
}

// TestUnpackHorizontalBlockLevels decodes random bytes, read as a
// horizontal block of every width, at every SIMD level the CPU has, and
// requires the pure-Go unpacker's values, from a source cut to exactly
// the block (the unpackers then read a copy) and from one with room past
// it (they read in place).
func TestUnpackHorizontalBlockLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, lv := range simd.Levels()[1:] {
		for b := 0; b <= MaxWidth; b++ {
			for _, slack := range []int{0, 16, 40} {
				t.Run(fmt.Sprintf("%s/b=%d/slack=%d", lv, b, slack), func(t *testing.T) {
					for range 20 {
						src := make([]byte, HorizontalLen(BlockLen, b)+slack)
						for i := range src {
							src[i] = byte(rng.Uint32())
						}
						var want, got [BlockLen]uint32
						for i := range got {
							got[i] = 0xDEADBEEF
						}
						UnpackHorizontal(want[:], src, b)
						simd.Run(lv, func() { UnpackHorizontalBlock(&got, src, b) })
						if got != want {
							for i := range got {
								if got[i] != want[i] {
									t.Fatalf("value %d = %#x, pure Go gives %#x", i, got[i], want[i])
								}
							}
						}
					}
				})
			}
		}
	}
}

func BenchmarkUnpackHorizontalBlock(b *testing.B) {
	for _, lv := range simd.Levels() {
		for _, w := range []int{1, 5, 13, 25} {
			b.Run(fmt.Sprintf("%s/b=%d", lv, w), func(b *testing.B) {
				src := make([]byte, HorizontalLen(BlockLen, w)+16)
				for i := range src {
					src[i] = byte(i * 37)
				}
				var dst [BlockLen]uint32
				b.SetBytes(4 * BlockLen)
				simd.Run(lv, func() {
					for b.Loop() {
						UnpackHorizontalBlock(&dst, src, w)
					}
				})
			})
		}
	}
}

// TestDecodeVerticalBlockSIMD requires UnpackVerticalSIMD to give the
// values UnpackVertical gives at every level, and the one-call prefix
// decoder to take every well-formed full block at the SSE and AVX2
// levels and to refuse, dst untouched, a missing or too-wide width byte,
// a block one byte short, running sums that could pass 2^32-1, and
// everything at the Go level: codectest's differential tests compare
// results, which decoders that always fell back to Go would pass too.
func TestDecodeVerticalBlockSIMD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, lv := range simd.Levels() {
		for b := 0; b <= MaxWidth; b++ {
			t.Run(fmt.Sprintf("%s/b=%d", lv, b), func(t *testing.T) {
				defer simd.Set(simd.Set(lv))
				simdLevel := lv != simd.Go
				src := append([]byte{byte(b)}, make([]byte, VerticalLen(b))...)
				for i := range src[1:] {
					src[1+i] = byte(rng.Uint32())
				}
				var want, got [BlockLen]uint32
				UnpackVertical(&want, src[1:], b)
				if UnpackVerticalSIMD(&got, src[1:], b, lv); got != want {
					t.Fatal("UnpackVerticalSIMD: other values")
				}
				limit := int64(1)<<32 - 1 - BlockLen*(int64(1)<<b-1)
				for _, base := range []int64{0, limit, limit + 1} {
					if base < 0 || base > 1<<32-1 {
						continue
					}
					ok := DecodeVerticalBlockPrefixSIMD(&got, src, uint32(base))
					if wantOK := simdLevel && base <= limit; ok != wantOK {
						t.Fatalf("prefix from %d: ok %v, want %v", base, ok, wantOK)
					}
				}
				poison := [BlockLen]uint32{0: 0xDEADBEEF}
				for _, bad := range [][]byte{nil, src[:len(src)-1], {33}, append([]byte{40}, src[1:]...)} {
					got = poison
					if DecodeVerticalBlockPrefixSIMD(&got, bad, 0) || got != poison {
						t.Fatalf("took or wrote for a bad block of %d bytes", len(bad))
					}
				}
			})
		}
	}
}
