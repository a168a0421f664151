// Command gensimd writes package simple's assembly Simple-16 word decoder
// with avo. Each 32-bit word is broadcast to every element of a vector;
// one variable shift (VPSRLVD) by the word's selector's field offsets and
// one AND with its field masks then give eight fields at once, and four
// such steps (three of eight, one of four) give the 28 fields that the
// widest layout holds, stored whatever the layout: a word costs the same
// few instructions and no branch on its selector, where the unrolled Go
// decoder's switch mispredicts about once a word. The offsets, masks and
// field counts are tables the Go side builds from the layouts and passes
// in, so that the layouts are written down once.
//
// Usage (run by go generate in codecplugins/simple):
//
//	go run ./internal/gensimd -out simple_amd64.s -stubs simple_amd64_stubs.go
package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/gpusearch/gpusearch/internal/asmgen"
)

func main() {
	c := build.NewContext()
	words16(c)
	asmgen.Main(c, "codecplugins/simple/internal/gensimd", "simple", "amd64 && !purego", nil)
}

// words16 writes decodeWords16AVX2.
func words16(c *build.Context) {
	c.Function("decodeWords16AVX2")
	asmgen.NoEscape(c)
	c.SignatureExpr("func(dst *uint32, room int, src *byte, n int, tab *uint32) (i, p int)")
	c.Doc("decodeWords16AVX2 decodes whole Simple-16 words from the n bytes at src",
		"into dst, which has room for room values, with AVX2, while room",
		"holds 28 more values and a word remains, and returns the values",
		"written and the bytes read; it stops before the word 0xFFFFFFFF.",
		"Each word writes 28 values, those past its fields garbage.")
	dst := c.Load(c.Param("dst"), c.GP64())
	room := c.Load(c.Param("room"), c.GP64())
	src := c.Load(c.Param("src"), c.GP64())
	n := c.Load(c.Param("n"), c.GP64())
	tab := c.Load(c.Param("tab"), c.GP64())
	i, p := c.GP64(), c.GP64()
	c.XORQ(i, i)
	c.XORQ(p, p)
	w, sel, off := c.GP32(), c.GP64(), c.GP64()
	k := c.GP64()
	y, t := reg.Y0, reg.Y1
	c.Label("loop")
	// Room for 28 more values and 4 more bytes, or stop.
	c.LEAQ(operand.Mem{Base: i, Disp: 28}, k)
	c.CMPQ(k, room)
	c.JA(operand.LabelRef("done"))
	c.LEAQ(operand.Mem{Base: p, Disp: 4}, k)
	c.CMPQ(k, n)
	c.JA(operand.LabelRef("done"))
	c.MOVL(operand.Mem{Base: src, Index: p, Scale: 1}, w)
	c.CMPL(w, operand.U32(0xFFFFFFFF))
	c.JE(operand.LabelRef("done"))
	c.MOVL(w, sel.As32())
	c.SHRL(operand.U8(28), sel.As32())
	c.MOVQ(sel, off)
	c.SHLQ(operand.U8(7), off) // 32 values of 4 bytes a selector
	c.VMOVD(w, y.AsX())
	c.VPBROADCASTD(y.AsX(), y)
	out := operand.Mem{Base: dst, Index: i, Scale: 4}
	for j := 0; j < 3; j++ {
		c.VPSRLVD(operand.Mem{Base: tab, Index: off, Scale: 1, Disp: 32 * j}, y, t)
		c.VPAND(operand.Mem{Base: tab, Index: off, Scale: 1, Disp: 16*128 + 32*j}, t, t)
		c.VMOVDQU(t, out.Offset(32*j))
	}
	c.VPSRLVD(operand.Mem{Base: tab, Index: off, Scale: 1, Disp: 96}, y.AsX(), t.AsX())
	c.VPAND(operand.Mem{Base: tab, Index: off, Scale: 1, Disp: 16*128 + 96}, t.AsX(), t.AsX())
	c.VMOVDQU(t.AsX(), out.Offset(96))
	c.MOVBQZX(operand.Mem{Base: tab, Index: sel, Scale: 1, Disp: 2 * 16 * 128}, k)
	c.ADDQ(k, i)
	c.ADDQ(operand.U8(4), p)
	c.JMP(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.Store(i, c.Return("i"))
	c.Store(p, c.Return("p"))
	c.RET()
}
