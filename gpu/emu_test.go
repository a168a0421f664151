//go:build !cuda

package gpu

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// sharedDecl matches the kernels' per-warp shared arrays, which the
// emulation turns into heap arrays so that an access past them faults or
// is caught by a sanitizer.
var sharedDecl = regexp.MustCompile(`__shared__ uint4 (\w+)\[WARPS\]\[([^\]]+)\];`)

// TestKernelsOnCPU runs kernels/decode.cu on the CPU through
// testdata/qemu/harness.cpp, under the host emulation of CUDA in qemu.h (a
// fiber per CUDA thread, a barrier per warp), and compares every kernel
// with the CPU reference decoder: columns of many lengths and value
// ranges, both outputs, whole and selected blocks; garbage blocks are
// decoded too and must stay in bounds. It needs a C++20 compiler ($CXX, else c++) and skips without one
// or with -short; GPUSEARCH_EMU_ASAN=1 adds AddressSanitizer.
func TestKernelsOnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a C++ emulation of the kernels")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("kernels/decode.cu")
	if err != nil {
		t.Fatal(err)
	}
	kern := sharedDecl.ReplaceAll(src, []byte("static auto $1 = new uint4[WARPS][$2];"))
	if n := len(sharedDecl.FindAll(src, -1)); n != 2 {
		t.Fatalf("found %d __shared__ declarations in decode.cu, want 2 (update the emulation)", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "kern.cu"), kern, 0o644); err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(dir, "harness")
	checkEmu(t, compileEmu("testdata/qemu/harness.cpp", harness, dir, "testdata/qemu", "kernels"))
	cases := filepath.Join(dir, "cases")
	f, err := os.Create(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeEmuCases(f, rand.New(rand.NewPCG(11, 12))); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(harness, cases).CombinedOutput()
	if err != nil {
		t.Fatalf("kernels differ from the CPU reference: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}

// writeEmuCases writes, for every GPU codec, posting lists and value
// columns of many lengths with their reference outputs, and garbage
// columns, in testdata/qemu/harness.cpp's format.
func writeEmuCases(w io.Writer, rng *rand.Rand) error {
	var buf bytes.Buffer
	put := func(v any) { binary.Write(&buf, binary.LittleEndian, v) }
	for _, name := range gpuCodecs {
		c, err := codecplugins.Lookup(name)
		if err != nil {
			return err
		}
		bs := c.BlockSize()
		var cols []HostColumn
		for _, n := range []int{1, 33, 127, 128, 129, bs - 1, bs + 1, 2*bs + 3, 3000} {
			cols = append(cols,
				EncodeList(c, randomList(rng, n, 1<<29)),
				EncodeList(c, randomList(rng, n, uint32(n+n/8+1))),
				EncodeList(c, randomList(rng, n, math.MaxUint32)))
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
			h.Bases = make([]uint32, h.NumBlocks())
			cols = append(cols, h)
		}
		garbage := len(cols)
		for g := range 12 {
			h := HostColumn{Codec: name, BlockSize: bs, Offsets: []uint64{0}}
			for b := range 3 {
				size := []int{rng.IntN(64), rng.IntN(5000), 20000}[(g+b)%3]
				if !strings.HasPrefix(name, "gpu-vbyte") {
					size &^= 3 // word formats: blocks stay 4-byte aligned
				}
				for range size {
					h.Data = append(h.Data, byte(rng.Uint32()))
				}
				h.Offsets = append(h.Offsets, uint64(len(h.Data)))
				h.Counts = append(h.Counts, uint32(rng.IntN(bs+1)))
				h.Bases = append(h.Bases, rng.Uint32())
			}
			cols = append(cols, h)
		}
		for i, h := range cols {
			stem := kernels[name]
			if i >= garbage {
				stem = "!" + stem
			}
			nb := h.NumBlocks()
			sel := make([]uint32, rng.IntN(2*nb+1))
			for k := range sel {
				sel[k] = uint32(rng.IntN(nb))
			}
			put(uint32(len(stem)))
			buf.WriteString(stem)
			put(uint32(bs))
			put(uint32(nb))
			put(uint64(len(h.Data)))
			buf.Write(h.Data)
			put(h.Offsets)
			put(h.Counts)
			put(h.Bases)
			put(uint32(len(sel)))
			put(sel)
			for m, s := range [][]uint32{nil, nil, sel, sel} {
				count := nb
				if s != nil {
					count = len(s)
				}
				want := make([]uint32, count*bs)
				for k := range want {
					want[k] = 0xDEADBEEF
				}
				if i < garbage {
					if err := h.Decode(want, s, Output(m%2)); err != nil {
						return err
					}
				}
				put(want)
			}
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}
