//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/cuda"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

const poison = 0xDEADBEEF

// openDevice opens device 0 on its first call; the whole test binary
// shares it.
var openDevice = sync.OnceValues(func() (*Device, error) { return OpenDevice(DeviceOptions{}) })

// testDevice returns the test binary's device 0.
func testDevice(t *testing.T) *Device {
	t.Helper()
	d, err := openDevice()
	if err != nil {
		t.Fatalf("OpenDevice: %v", err)
	}
	return d
}

func TestDeviceInfo(t *testing.T) {
	d := testDevice(t)
	info := d.Info()
	t.Logf("device %+v, kernels from %s", info, d.PTXSource())
	if info.SMs <= 0 || info.TotalBytes <= 0 || info.BudgetBytes <= 0 || info.Name == "" {
		t.Errorf("Info() = %+v, want a name, SMs, memory and a budget", info)
	}
}

// gpuDecode uploads h, decodes it (all blocks, or sel) on the device into
// a poisoned buffer and returns the output rows.
func gpuDecode(t *testing.T, d *Device, col *Column, sel []uint32, out Output) []uint32 {
	t.Helper()
	count := col.NumBlocks()
	var selBuf *Buffer
	if sel != nil {
		count = len(sel)
		var err error
		if selBuf, err = d.Alloc(4 * int64(len(sel))); err != nil {
			t.Fatal(err)
		}
		defer selBuf.Free()
		if err := selBuf.WriteUint32s(sel); err != nil {
			t.Fatal(err)
		}
	}
	n := count * col.BlockSize()
	ob, err := d.Alloc(4 * int64(n))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Free()
	if err := ob.Fill32(poison); err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(DecodeJob{Col: col, Count: count, Sel: selBuf, Out: ob, Output: out}); err != nil {
		t.Fatalf("Decode(%s, %s): %v", col.Codec(), out, err)
	}
	got := make([]uint32, n)
	if err := ob.ReadUint32s(got); err != nil {
		t.Fatal(err)
	}
	return got
}

// cpuDecode is the reference: HostColumn.Decode into a poisoned slice.
func cpuDecode(t *testing.T, h *HostColumn, sel []uint32, out Output) []uint32 {
	t.Helper()
	count := h.NumBlocks()
	if sel != nil {
		count = len(sel)
	}
	want := make([]uint32, count*h.BlockSize)
	for i := range want {
		want[i] = poison
	}
	if err := h.Decode(want, sel, out); err != nil {
		t.Fatal(err)
	}
	return want
}

func compare(t *testing.T, what string, got, want []uint32, bs int) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: out[%d] (block %d, value %d) = %#x, want %#x", what, i, i/bs, i%bs, got[i], want[i])
		}
	}
}

// testColumns returns, for a codec, posting lists of many lengths (block
// boundaries, 1, empty, 2^20) and value columns with 32-bit values.
func testColumns(rng *rand.Rand, c codecplugins.Codec) map[string]HostColumn {
	bs := c.BlockSize()
	cols := map[string]HostColumn{}
	for _, n := range []int{0, 1, 31, 32, 33, 127, 128, 129, bs - 1, bs, bs + 1, 2 * bs, 5*bs + 17, 1 << 20} {
		cols[fmt.Sprintf("uniform/n=%d", n)] = EncodeList(c, randomList(rng, n, 1<<29))
		cols[fmt.Sprintf("dense/n=%d", n)] = EncodeList(c, randomList(rng, n, uint32(max(1, n+n/8))))
	}
	for _, n := range []int{1, 129, 5000} {
		cols[fmt.Sprintf("wide/n=%d", n)] = EncodeList(c, randomList(rng, n, math.MaxUint32))
		v := make([]uint32, n)
		for i := range v {
			switch rng.IntN(4) {
			case 0:
				v[i] = rng.Uint32()
			case 1:
				v[i] = uint32(rng.IntN(3))
			default:
				v[i] = uint32(rng.ExpFloat64() * 30)
			}
		}
		h := EncodeValues(c, v)
		h.Bases = make([]uint32, h.NumBlocks()) // docid output of values: plain prefix sums
		cols[fmt.Sprintf("values/n=%d", n)] = h
	}
	return cols
}

// TestDecodeMatchesCPU checks every GPU decoder against the CPU reference
// decoder, in both outputs, for whole columns and for selected blocks,
// and that docid output is the prefix sums of gap output.
func TestDecodeMatchesCPU(t *testing.T) {
	d := testDevice(t)
	rng := rand.New(rand.NewPCG(42, 7))
	for _, name := range gpuCodecs {
		c, err := codecplugins.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		cols := testColumns(rng, c)
		keys := make([]string, 0, len(cols))
		for k := range cols {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			h := cols[k]
			t.Run(name+"/"+k, func(t *testing.T) {
				col, err := d.UploadColumn(&h)
				if err != nil {
					t.Fatal(err)
				}
				defer col.Free()
				bs := h.BlockSize
				gaps := gpuDecode(t, d, col, nil, Gaps)
				compare(t, "gaps", gaps, cpuDecode(t, &h, nil, Gaps), bs)
				docids := gpuDecode(t, d, col, nil, DocIDs)
				compare(t, "docids", docids, cpuDecode(t, &h, nil, DocIDs), bs)
				// Docids are the block-local prefix sums of the gaps.
				for b := range h.NumBlocks() {
					acc := h.Bases[b]
					for i := range int(h.Counts[b]) {
						acc += gaps[b*bs+i]
						if docids[b*bs+i] != acc {
							t.Fatalf("docids[%d] = %d, want prefix sum %d", b*bs+i, docids[b*bs+i], acc)
						}
					}
				}
				if h.NumBlocks() == 0 {
					return
				}
				// Selected blocks, out of order and repeated, equal the
				// full decode's rows.
				sel := make([]uint32, 1+rng.IntN(2*h.NumBlocks()))
				for i := range sel {
					sel[i] = uint32(rng.IntN(h.NumBlocks()))
				}
				sel[0] = uint32(h.NumBlocks() - 1)
				for _, o := range []Output{Gaps, DocIDs} {
					full := gaps
					if o == DocIDs {
						full = docids
					}
					picked := make([]uint32, len(sel)*bs)
					for i := range picked {
						picked[i] = poison
					}
					for k, b := range sel {
						copy(picked[k*bs:k*bs+int(h.Counts[b])], full[int(b)*bs:])
					}
					compare(t, "selected "+o.String(), gpuDecode(t, d, col, sel, o), picked, bs)
				}
			})
		}
	}
}

// TestUploadIndex writes an index with GPU codecs (frequency blocks shorter
// than their codec's block size), uploads it and decodes both columns.
func TestUploadIndex(t *testing.T) {
	d := testDevice(t)
	rng := rand.New(rand.NewPCG(8, 9))
	const docs = 20000
	lens := make([]uint32, docs)
	urls := make([]string, docs)
	for i := range lens {
		lens[i] = 1 + uint32(i%50)
		urls[i] = fmt.Sprintf("u%06d", i)
	}
	for _, codecs := range [][2]string{{"gpu-bp128", "gpu-vbyte1024"}, {"gpu-pfordelta", "gpu-rice"}, {"gpu-vbyte128", "gpu-bp256"}} {
		t.Run(codecs[0]+"+"+codecs[1], func(t *testing.T) {
			var postings []testindex.Postings
			for i, n := range []int{1, 128, 129, 3000, docs} {
				l := randomList(rng, n, docs)
				f := make([]uint32, n)
				for j := range f {
					f[j] = 1 + uint32(rng.IntN(40))
				}
				postings = append(postings, testindex.Postings{Term: fmt.Sprintf("t%d", i), DocIDs: l, Freqs: f})
			}
			ix := testindex.Write(t, index.WriterOptions{DocIDCodec: codecs[0], FreqCodec: codecs[1]}, lens, urls, postings...)
			r, err := d.Upload(ix)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Free()
			dh, fh := IndexColumns(ix)
			compare(t, "docids", gpuDecode(t, d, r.DocIDs, nil, DocIDs), cpuDecode(t, &dh, nil, DocIDs), dh.BlockSize)
			compare(t, "freqs", gpuDecode(t, d, r.Freqs, nil, Gaps), cpuDecode(t, &fh, nil, Gaps), fh.BlockSize)
			last := make([]uint32, dh.NumBlocks())
			if err := r.LastDocIDs.ReadUint32s(last); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(last, ix.Skips().LastDocIDs) {
				t.Errorf("resident last docids differ from the skip table")
			}
		})
	}
}

// TestGarbageBlocks decodes random bytes in every format: the output is
// garbage, but the kernels must stay in bounds and the device usable.
func TestGarbageBlocks(t *testing.T) {
	d := testDevice(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, name := range gpuCodecs {
		t.Run(name, func(t *testing.T) {
			c, _ := codecplugins.Lookup(name)
			bs := c.BlockSize()
			h := HostColumn{Codec: name, BlockSize: bs, Offsets: []uint64{0}}
			for b := range 200 {
				size := rng.IntN(64)
				switch b % 4 {
				case 1:
					size = rng.IntN(5000)
				case 2:
					size = 20000 // past every staging capacity
				}
				if name != "gpu-vbyte128" && name != "gpu-vbyte1024" {
					size &^= 3
				}
				for range size {
					h.Data = append(h.Data, byte(rng.Uint32()))
				}
				h.Offsets = append(h.Offsets, uint64(len(h.Data)))
				h.Counts = append(h.Counts, uint32(rng.IntN(bs+1)))
				h.Bases = append(h.Bases, rng.Uint32())
			}
			col, err := d.UploadColumn(&h)
			if err != nil {
				t.Fatal(err)
			}
			defer col.Free()
			gpuDecode(t, d, col, nil, Gaps)
			gpuDecode(t, d, col, nil, DocIDs)
		})
	}
	// The device still decodes correctly.
	c, _ := codecplugins.Lookup("gpu-bp256")
	h := EncodeList(c, randomList(rng, 1000, 1<<20))
	col, err := d.UploadColumn(&h)
	if err != nil {
		t.Fatal(err)
	}
	defer col.Free()
	compare(t, "after garbage", gpuDecode(t, d, col, nil, DocIDs), cpuDecode(t, &h, nil, DocIDs), h.BlockSize)
}

func TestDecodeJobErrors(t *testing.T) {
	d := testDevice(t)
	c, _ := codecplugins.Lookup("gpu-bp128")
	h := EncodeList(c, randomList(rand.New(rand.NewPCG(1, 1)), 300, 1<<20)) // 3 blocks
	col, err := d.UploadColumn(&h)
	if err != nil {
		t.Fatal(err)
	}
	defer col.Free()
	vh := EncodeValues(c, []uint32{1, 2, 3})
	vcol, err := d.UploadColumn(&vh)
	if err != nil {
		t.Fatal(err)
	}
	defer vcol.Free()
	out, err := d.Alloc(4 * 3 * 128)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Free()
	small, err := d.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Free()
	tests := []struct {
		name string
		job  DecodeJob
	}{
		{"no-output", DecodeJob{Col: col, Count: 1}},
		{"past-last-block", DecodeJob{Col: col, First: 2, Count: 2, Out: out}},
		{"negative-first", DecodeJob{Col: col, First: -1, Count: 1, Out: out}},
		{"output-too-small", DecodeJob{Col: col, Count: 3, Out: small}},
		{"selection-too-small", DecodeJob{Col: col, Count: 5, Sel: small, Out: out}}, // 16 bytes hold 4 block ids
		{"docids-without-bases", DecodeJob{Col: vcol, Count: 1, Out: out, Output: DocIDs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := d.Decode(tt.job); err == nil {
				t.Errorf("Decode(%s) = nil, want an error", tt.name)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("no-such-device", func(t *testing.T) {
		if _, err := OpenDevice(DeviceOptions{Ordinal: 999}); !errors.Is(err, ErrNoDevice) {
			t.Errorf("OpenDevice(999) = %v, want ErrNoDevice", err)
		}
	})
	t.Run("missing-ptx", func(t *testing.T) {
		t.Setenv(cuda.PTXDirEnv, t.TempDir())
		if _, err := OpenDevice(DeviceOptions{}); !errors.Is(err, ErrBadPTX) {
			t.Errorf("OpenDevice(no PTX) = %v, want ErrBadPTX", err)
		}
	})
	t.Run("bad-ptx", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "decode.ptx"), []byte(".version 8.0\nthis is not ptx\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(cuda.PTXDirEnv, dir)
		if _, err := OpenDevice(DeviceOptions{}); !errors.Is(err, ErrBadPTX) {
			t.Errorf("OpenDevice(bad PTX) = %v, want ErrBadPTX", err)
		}
	})
	t.Run("budget", func(t *testing.T) {
		d, err := OpenDevice(DeviceOptions{MemoryBudgetMB: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if _, err := d.Alloc(2 << 20); !errors.Is(err, ErrOutOfMemory) {
			t.Errorf("Alloc(2 MB) under a 1 MB budget = %v, want ErrOutOfMemory", err)
		}
		b, err := d.Alloc(1 << 19)
		if err != nil {
			t.Fatalf("Alloc(512 KB) under a 1 MB budget: %v", err)
		}
		if got := d.Used(); got != 1<<19 {
			t.Errorf("Used() = %d, want %d", got, 1<<19)
		}
		b.Free()
		if got := d.Used(); got != 0 {
			t.Errorf("Used() after Free = %d, want 0", got)
		}
	})
	t.Run("closed", func(t *testing.T) {
		d, err := OpenDevice(DeviceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		if _, err := d.Alloc(16); !errors.Is(err, ErrClosed) {
			t.Errorf("Alloc after Close = %v, want ErrClosed", err)
		}
	})
}

func TestTimeCopy(t *testing.T) {
	d := testDevice(t)
	const n = 64 << 20
	src, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	dst, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	if err := src.Fill32(0x01020304); err != nil {
		t.Fatal(err)
	}
	for _, kernel := range []bool{false, true} {
		if err := dst.Fill32(0); err != nil {
			t.Fatal(err)
		}
		el, err := d.TimeCopy(dst, src, n, kernel)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, n/4)
		if err := dst.ReadUint32s(got); err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(got, func(x uint32) bool { return x != 0x01020304 }); i >= 0 {
			t.Fatalf("TimeCopy(kernel=%v) left word %d = %#x", kernel, i, got[i])
		}
		t.Logf("copy (kernel=%v) of %d MB: %v, %.0f GB/s read+write", kernel, n>>20, el, 2*float64(n)/el.Seconds()/1e9)
	}
}
