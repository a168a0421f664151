// Command gensimd writes the assembly unpackers of package bitpack's
// vertical layout with avo: one SSE2 and one AVX2 function, each holding a
// fully unrolled kernel for every width b in 1..32 that decodes a 128-value
// block.
//
// The vertical layout puts word j of the four lanes in one 16-byte row, so
// an SSE register loaded at row j holds a word of every lane, and the same
// shift and mask yield the next value of all four lanes at once; those four
// values are dst[4k..4k+3], one 16-byte store. A value that crosses from
// row j into row j+1 takes a second shift and an OR.
//
// The AVX2 routine decodes two such rows of output (values k and k+1 of
// every lane, dst[4k..4k+7]) per 32-byte register. Its lower half holds the
// row value k starts in and its upper half the row of value k+1: the same
// row broadcast (VBROADCASTI128) or two adjacent rows (one unaligned
// 32-byte load), and a per-half shift (VPSRLVD, counts from a constant)
// lines both up. Crossing values get their high bits from the rows after,
// shifted left by VPSLLVD, whose counts of 32 zero the half that does not
// cross. No layout change is needed: the block format stays the 4-lane one
// SSE reads.
//
// Usage (run by go generate in codecplugins/bp/bitpack):
//
//	go run ../internal/gensimd -out unpack_amd64.s -stubs unpack_amd64_stubs.go
package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/gpusearch/gpusearch/internal/asmgen"
	"github.com/gpusearch/gpusearch/internal/simd"
)

const perLane = 32 // values in each of the four lanes

func main() {
	c := build.NewContext()
	g := &gen{Context: c, consts: map[string]operand.Mem{}}
	limits := g.prefixLimits()
	for _, l := range []struct {
		isa, suffix string
		k           kernel
	}{{"SSE2", "SSE", g.sse}, {"AVX2", "AVX2", g.avx2}} {
		g.entry("unpackV"+l.suffix, l.isa, false, "vKernel"+l.suffix)
		g.entry("unpackVPrefix"+l.suffix, l.isa, true, "vPrefixKernel"+l.suffix)
		g.kernels("vKernel"+l.suffix, l.isa, false, false, l.k)
		g.kernels("vPrefixKernel"+l.suffix, l.isa, true, false, l.k)
		g.kernels("vPatchPrefixKernel"+l.suffix, l.isa, true, true, l.k)
	}
	g.prefixEntry("prefixSSE", "SSE2")
	g.prefixEntry("prefixAVX2", "AVX2")
	g.levelEntry("unpackVBlock")
	g.blockEntry("decodeVBlockPrefix", limits)
	g.patchEntry("unpackVPatchedPrefix")
	asmgen.Main(c, "codecplugins/bp/internal/gensimd", "bitpack", "amd64 && !purego", nil)
}

type gen struct {
	*build.Context
	consts map[string]operand.Mem // shift-count vectors by name
}

// The registers the entry functions hand the kernels: dst, src (the first
// byte of the packed block), the width b, for a patched block the 128
// values to add (patchReg), and for running sums the sum so far in every
// 32-bit element of prevReg (X14 or Y14 by ISA).
var (
	dstReg, srcReg, widthReg, patchReg = reg.RDI, reg.RSI, reg.RBX, reg.R8
)

// prevReg is the running-sum register of the ISA's kernels.
func prevReg(isa string) reg.VecPhysical {
	if isa == "AVX2" {
		return reg.Y14
	}
	return reg.X14
}

// pos is where value k of a lane starts: row j, bit sh.
func pos(k, b int) (j, sh int) { return k * b / 32, k * b % 32 }

// kernel writes the unrolled unpacker of width b. With patch not nil it
// adds the 128 values there, shifted left by b, to the unpacked ones;
// with prev not nil it then turns the values into running sums: prev
// holds the sum so far in every 32-bit element and is kept up to date.
type kernel func(b int, dst, src operand.Mem, patch *operand.Mem, prev reg.VecPhysical)

// broadcastBase loads base into every 32-bit element of prevReg(isa).
func (g *gen) broadcastBase(isa string, base reg.Register) {
	prev := prevReg(isa)
	if isa == "AVX2" {
		g.VMOVD(base, reg.X14)
		g.VPBROADCASTD(reg.X14, prev)
		return
	}
	g.MOVD(base, prev)
	g.PSHUFD(operand.U8(0), prev, prev)
}

// entry writes name, the width-given unpacker of package bitpack's
// UnpackVertical (and with prefix UnpackVerticalPrefix): it moves its
// arguments into the kernels' registers and jumps to kern.
func (g *gen) entry(name, isa string, prefix bool, kern string) {
	g.Function(name)
	asmgen.NoEscape(g.Context)
	if prefix {
		g.SignatureExpr("func(dst *[128]uint32, src *byte, b int, base uint32)")
		g.Doc(name+" decodes a vertical block of width b, 0 <= b <= 32, with "+isa+",",
			"into dst[i] = base + v[0] + ... + v[i] modulo 2^32; src holds at least",
			"16*b bytes.")
	} else {
		g.SignatureExpr("func(dst *[128]uint32, src *byte, b int)")
		g.Doc(name+" decodes a vertical block of width b, 0 <= b <= 32, with "+isa+";",
			"src holds at least 16*b bytes.")
	}
	g.Load(g.Param("dst"), dstReg)
	g.Load(g.Param("src"), srcReg)
	g.Load(g.Param("b"), widthReg)
	if prefix {
		g.broadcastBase(isa, g.Load(g.Param("base"), g.GP32()).(reg.GPVirtual))
	}
	g.tailJump(kern, isa, prefix, false)
}

// tailJump ends the function being written with a jump to the function
// kern, which returns to this one's caller. avo takes a branch to a
// label only, so the jump is written as a terminal instruction whose
// inputs are the kernels' registers, which keeps them live up to it.
func (g *gen) tailJump(kern, isa string, prefix, patched bool) {
	in := []operand.Op{dstReg, srcReg, widthReg}
	if patched {
		in = append(in, patchReg)
	}
	if prefix {
		in = append(in, prevReg(isa))
	}
	g.Instruction(&ir.Instruction{
		Opcode:     "JMP",
		Operands:   []operand.Op{operand.Mem{Symbol: operand.Symbol{Name: "·" + kern}, Base: reg.StaticBase}},
		Inputs:     in,
		IsTerminal: true,
	})
}

// prefixLimits writes the table of the largest base, for each width b,
// from which 128 values below 2^b cannot carry a running sum past
// 2^32-1: 2^32-1 - 128*(2^b-1), negative (never) from width 26 on.
func (g *gen) prefixLimits() operand.Mem {
	m := g.StaticGlobal("prefixLimit")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for b := 0; b <= 32; b++ {
		g.AddDatum(8*b, operand.I64(int64(1)<<32-1-128*(int64(1)<<b-1)))
	}
	return m
}

// prefixEntry writes name, package bitpack's PrefixSum at one ISA: the
// 128 values of dst, in place, into running sums from base, with the
// prefix steps of the unpack-and-sum kernels (ssePrefix, avx2Prefix). A
// patched frame-of-reference block, whose exceptions must be patched in
// before its gaps are summed, is unpacked, patched and summed so.
func (g *gen) prefixEntry(name, isa string) {
	g.Function(name)
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *[128]uint32, base uint32)")
	g.Doc(name+" turns the 128 values of dst into dst[i] = base + v[0] + ... + v[i]",
		"modulo 2^32, with "+isa+".")
	g.Load(g.Param("dst"), dstReg)
	g.broadcastBase(isa, g.Load(g.Param("base"), g.GP32()).(reg.GPVirtual))
	dst := operand.Mem{Base: dstReg}
	g.sums(isa, dst, dst, prevReg(isa))
	g.RET()
}

// sums writes the running sums from prev of the 128 values at src into
// dst, which may be src, with the prefix steps of the unpack-and-sum
// kernels.
func (g *gen) sums(isa string, dst, src operand.Mem, prev reg.VecPhysical) {
	if isa == "AVX2" {
		last := reg.Y13
		g.VMOVDQU(g.counts(7, 7), last)
		for i := 0; i < 16; i++ {
			g.VMOVDQU(src.Offset(32*i), reg.Y0)
			g.avx2Prefix(reg.Y0, prev, last)
			g.VMOVDQU(reg.Y0, dst.Offset(32*i))
		}
		g.VZEROUPPER()
		return
	}
	for i := 0; i < 32; i++ {
		g.MOVOU(src.Offset(16*i), reg.X0)
		g.ssePrefix(reg.X0, prev)
		g.MOVOU(reg.X0, dst.Offset(16*i))
	}
}

// levelEntry writes name, package bitpack's UnpackVerticalSIMD: it
// checks nothing, moves its arguments into the kernels' registers and
// jumps to the AVX2 kernels where its argument level is 2 (simd.AVX2)
// and to the SSE ones for any other. Its caller has checked the block in
// Go, so that nothing of the caller's is live across the call and the
// call needs no spills around it.
func (g *gen) levelEntry(name string) {
	g.Function(name)
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *[128]uint32, src *byte, b int, level uint8)")
	g.Doc(name+" decodes a vertical block of width b, 0 <= b <= 32, with AVX2 at",
		"level 2 (simd.AVX2) and else SSE2; src holds at least 16*b bytes.")
	g.Load(g.Param("dst"), dstReg)
	g.Load(g.Param("src"), srcReg)
	g.Load(g.Param("b"), widthReg)
	asmgen.PrefetchAhead(g.Context, srcReg, 2)
	g.toLevel("vKernel", nil, false)
}

// toLevel ends an entry function: it jumps to the kernels kern+"SSE" or,
// where the argument level is 2 (simd.AVX2), kern+"AVX2", with base, if
// any, in every element of the running-sum register first; patched
// passes the patch register on.
func (g *gen) toLevel(kern string, base reg.Register, patched bool) {
	level := g.Load(g.Param("level"), g.GP8())
	g.CMPB(level, operand.U8(simd.AVX2))
	g.JE(operand.LabelRef("avx2"))
	for _, l := range []struct{ isa, suffix string }{{"SSE2", "SSE"}, {"AVX2", "AVX2"}} {
		if l.isa == "AVX2" {
			g.Label("avx2")
		}
		if base != nil {
			g.broadcastBase(l.isa, base)
		}
		g.tailJump(kern+l.suffix, l.isa, base != nil, patched)
	}
}

// patchEntry writes name, package bitpack's UnpackVerticalPatchedPrefix
// at a level given as an argument: it checks nothing, moves its arguments
// into the kernels' registers and jumps to the AVX2 patch kernels at
// level 2 (simd.AVX2) and the SSE ones at any other.
func (g *gen) patchEntry(name string) {
	g.Function(name)
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *[128]uint32, src *byte, b int, patch *[128]uint32, base uint32, level uint8)")
	g.Doc(name+" decodes a vertical block of width b, 0 <= b <= 32, adds patch",
		"shifted left by b and turns the values into running sums from base, with",
		"AVX2 at level 2 (simd.AVX2) and else SSE2; src holds at least 16*b bytes.")
	g.Load(g.Param("dst"), dstReg)
	g.Load(g.Param("src"), srcReg)
	g.Load(g.Param("b"), widthReg)
	g.Load(g.Param("patch"), patchReg)
	asmgen.PrefetchAhead(g.Context, srcReg, 2)
	g.toLevel("vPatchPrefixKernel", g.Load(g.Param("base"), g.GP32()), true)
}

// blockEntry writes name, package bitpack's decoder of a whole bp128
// block (a width byte, then the vertical layout) into running sums in one
// call: it checks the width, src's length and that base leaves no running
// sum past 2^32-1, returns false on any of these without touching dst,
// and else returns true through the AVX2 kernels where its argument level
// is 2 (simd.AVX2) and the SSE ones for any other. The checks, the
// level's and the width's dispatch and the kernel in one call is what
// DecodeBlockPrefix spends per block beyond the kernel's own work; the
// one entry for both levels keeps the Go function that calls it small
// enough to inline.
func (g *gen) blockEntry(name string, limits operand.Mem) {
	g.Function(name)
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *[128]uint32, src *byte, n int, base uint32, level uint8) bool")
	g.Doc(name+" decodes the bp128 block of the n bytes at src into running",
		"sums from base, with AVX2 at level 2 (simd.AVX2) and else SSE2, and",
		"reports true; it reports false, dst untouched, where n is too short,",
		"the width above 32 or a sum could pass 2^32-1.")
	n := g.Load(g.Param("n"), g.GP64())
	g.TESTQ(n, n)
	g.JLE(operand.LabelRef("fail"))
	g.Load(g.Param("src"), srcReg)
	g.MOVBQZX(operand.Mem{Base: srcReg}, widthReg)
	g.CMPQ(widthReg, operand.U8(32))
	g.JA(operand.LabelRef("fail"))
	need := g.GP64()
	g.MOVQ(widthReg, need)
	g.SHLQ(operand.U8(4), need)
	g.CMPQ(need, n) // 1+16b bytes needed: fail where 16b >= n
	g.JGE(operand.LabelRef("fail"))
	base := g.Load(g.Param("base"), g.GP32()).(reg.GPVirtual)
	wide := g.GP64()
	g.MOVL(base, wide.As32()) // zero-extends
	tab := g.GP64()
	g.LEAQ(limits, tab)
	g.CMPQ(wide, operand.Mem{Base: tab, Index: widthReg, Scale: 8})
	g.JG(operand.LabelRef("fail"))
	asmgen.PrefetchAhead(g.Context, srcReg, 2)
	g.INCQ(srcReg)
	g.Load(g.Param("dst"), dstReg)
	g.MOVB(operand.U8(1), asmgen.Ret(g.Context))
	g.toLevel("vPrefixKernel", base, false)
	g.Label("fail")
	g.MOVB(operand.U8(0), asmgen.Ret(g.Context))
	g.RET()
}

// kernels writes name: a binary search on the width in widthReg, 0..32,
// that branches to the unrolled kernel of that width, which returns to
// the entry function's caller. The entries jump here with the arguments
// in registers, so that one copy of the 33 kernels serves them all; one
// function with direct branches costs less per block than a Go table of
// 33 assembly functions, whose indirect calls go through ABI wrappers.
// With patched, the kernels add the values at patchReg, shifted left by
// the width; with prefix, they write running sums from prevReg.
func (g *gen) kernels(name, isa string, prefix, patched bool, k kernel) {
	g.Function(name)
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func()")
	g.Doc(name+" holds the "+isa+" kernels of every width that the entry functions",
		"above jump to, with their arguments in registers; it is never called.")
	var prev reg.VecPhysical
	if prefix {
		prev = prevReg(isa)
	}
	dst, src := operand.Mem{Base: dstReg}, operand.Mem{Base: srcReg}
	var patch *operand.Mem
	if patched {
		patch = &operand.Mem{Base: patchReg}
	}
	g.search(widthReg, 0, 32)
	for w := 0; w <= 32; w++ {
		g.Label(fmt.Sprintf("width%d", w))
		switch {
		case w == 0 && patched:
			// Every value is its patch, every sum one of the patches.
			g.sums(isa, dst, *patch, prev)
		case w == 0:
			g.zero(isa, dst, prev)
		default:
			k(w, dst, src, patch, prev)
		}
		g.RET()
	}
}

// zero writes the width-0 kernel: every value is 0, every running sum the
// base.
func (g *gen) zero(isa string, dst operand.Mem, prev reg.VecPhysical) {
	v := prev
	if isa == "AVX2" {
		if v == nil {
			v = reg.Y0
			g.VPXOR(v, v, v)
		}
		for i := 0; i < 16; i++ {
			g.VMOVDQU(v, dst.Offset(32*i))
		}
		g.VZEROUPPER()
		return
	}
	if v == nil {
		v = reg.X0
		g.PXOR(v, v)
	}
	for i := 0; i < 32; i++ {
		g.MOVOU(v, dst.Offset(16*i))
	}
}

// search branches to label widthW for the W in [lo, hi] that b holds.
func (g *gen) search(b reg.Register, lo, hi int) {
	if lo == hi {
		g.JMP(operand.LabelRef(fmt.Sprintf("width%d", lo)))
		return
	}
	mid := (lo + hi + 1) / 2
	upper := fmt.Sprintf("from%d_%d", mid, hi)
	if mid == hi {
		upper = fmt.Sprintf("width%d", hi)
	}
	g.CMPQ(b, operand.U8(mid))
	g.JGE(operand.LabelRef(upper))
	g.search(b, lo, mid-1)
	if mid < hi {
		g.Label(upper)
		g.search(b, mid, hi)
	}
}

// sse writes the 4-lane SSE2 kernel of width b.
func (g *gen) sse(b int, dst, src operand.Mem, patch *operand.Mem, prev reg.VecPhysical) {
	// Rows are used in increasing order, two at most at a time, so row j
	// lives in X0 or X1 by parity and loads over row j-2.
	loaded := -1
	row := func(j int) reg.VecPhysical {
		r := []reg.VecPhysical{reg.X0, reg.X1}[j%2]
		if j > loaded {
			g.MOVOU(src.Offset(16*j), r)
			loaded = j
		}
		return r
	}
	var mask reg.VecPhysical
	if b < 32 {
		mask = reg.X15
		g.PCMPEQL(mask, mask)
		g.PSRLL(operand.U8(32-b), mask)
	}
	for k := 0; k < perLane; k++ {
		j, sh := pos(k, b)
		x := reg.X2
		g.MOVO(row(j), x)
		if sh > 0 {
			g.PSRLL(operand.U8(sh), x)
		}
		if sh+b > 32 {
			y := reg.X3
			g.MOVO(row(j+1), y)
			g.PSLLL(operand.U8(32-sh), y)
			g.POR(y, x)
		}
		if sh+b != 32 {
			g.PAND(mask, x)
		}
		if patch != nil {
			g.MOVOU(patch.Offset(16*k), reg.X6)
			g.PSLLL(operand.U8(b), reg.X6)
			g.PADDL(reg.X6, x)
		}
		if prev != nil {
			g.ssePrefix(x, prev)
		}
		g.MOVOU(x, dst.Offset(16*k))
	}
}

// ssePrefix turns the four values of x, dst[4k..4k+3], into running sums
// from prev and adds their total to prev. The sums within x take two
// shift-and-add steps; prev's chain from one x to the next is one add.
func (g *gen) ssePrefix(x, prev reg.VecPhysical) {
	for _, n := range []int{4, 8} {
		t := reg.X4
		g.MOVO(x, t)
		g.PSLLO(operand.U8(n), t)
		g.PADDL(t, x)
	}
	total := reg.X5
	g.PSHUFD(operand.U8(0xFF), x, total)
	g.PADDL(prev, x)
	g.PADDL(total, prev)
}

// counts returns a constant of four 32-bit shift counts a followed by four
// counts c, for VPSRLVD and VPSLLVD.
func (g *gen) counts(a, c int) operand.Mem {
	name := fmt.Sprintf("shift_%d_%d", a, c)
	if m, ok := g.consts[name]; ok {
		return m
	}
	m := g.StaticGlobal(name)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 8; i++ {
		v := a
		if i >= 4 {
			v = c
		}
		g.AddDatum(4*i, operand.U32(v))
	}
	g.consts[name] = m
	return m
}

// rows loads row j0 into the low half of Y2 (Y3 for the high bits of
// crossing values, hi) and row j1, equal to j0 or the next one, into its
// high half.
func (g *gen) rows(src operand.Mem, j0, j1 int, hi bool) reg.VecPhysical {
	y := reg.Y2
	if hi {
		y = reg.Y3
	}
	if j1 == j0 {
		g.VBROADCASTI128(src.Offset(16*j0), y)
	} else {
		g.VMOVDQU(src.Offset(16*j0), y)
	}
	return y
}

// avx2 writes the two-values-per-lane AVX2 kernel of width b.
func (g *gen) avx2(b int, dst, src operand.Mem, patch *operand.Mem, prev reg.VecPhysical) {
	var last reg.VecPhysical // the index vector of element 7, for VPERMD
	if prev != nil {
		last = reg.Y13
		g.VMOVDQU(g.counts(7, 7), last)
	}
	var mask reg.VecPhysical
	if b < 32 {
		mask = reg.Y15
		g.VPCMPEQD(mask, mask, mask)
		g.VPSRLD(operand.U8(32-b), mask, mask)
	}
	for k := 0; k < perLane; k += 2 {
		j0, s0 := pos(k, b)
		j1, s1 := pos(k+1, b)
		x := g.rows(src, j0, j1, false)
		switch {
		case s0 == s1 && s0 > 0:
			g.VPSRLD(operand.U8(s0), x, x)
		case s0 != s1:
			g.VPSRLVD(g.counts(s0, s1), x, x)
		}
		cross0, cross1 := s0+b > 32, s1+b > 32
		if cross0 || cross1 {
			// Rows holding the high bits; a half that does not cross
			// reads the other half's row and is shifted out entirely.
			z0, z1 := j0+1, j1+1
			c0, c1 := 32-s0, 32-s1
			if !cross0 {
				z0, c0 = z1, 32
			}
			if !cross1 {
				z1, c1 = z0, 32
			}
			y := g.rows(src, z0, z1, true)
			g.VPSLLVD(g.counts(c0, c1), y, y)
			g.VPOR(y, x, x)
		}
		if b < 32 && (s0+b != 32 || s1+b != 32) {
			g.VPAND(mask, x, x)
		}
		if patch != nil {
			g.VMOVDQU(patch.Offset(16*k), reg.Y7)
			g.VPSLLD(operand.U8(b), reg.Y7, reg.Y7)
			g.VPADDD(reg.Y7, x, x)
		}
		if prev != nil {
			g.avx2Prefix(x, prev, last)
		}
		g.VMOVDQU(x, dst.Offset(16*k))
	}
	g.VZEROUPPER()
}

// avx2Prefix turns the eight values of x, dst[4k..4k+7], into running sums
// from prev and adds their total to prev. Byte shifts work within each
// 16-byte half, so the low half's total is carried into the high half
// separately; prev's chain from one x to the next is one add.
func (g *gen) avx2Prefix(x, prev, last reg.VecPhysical) {
	for _, n := range []int{4, 8} {
		t := reg.Y4
		g.VPSLLDQ(operand.U8(n), x, t)
		g.VPADDD(t, x, x)
	}
	carry := reg.Y5
	g.VPSHUFD(operand.U8(0xFF), x, carry)
	// Low half zeroed, high half gets the low half's total.
	g.VPERM2I128(operand.U8(0x08), carry, carry, carry)
	g.VPADDD(carry, x, x)
	total := reg.Y6
	g.VPERMD(x, last, total)
	g.VPADDD(prev, x, x)
	g.VPADDD(total, prev, prev)
}
