// Command gensimd writes package varint's assembly decoders with avo.
//
// streamvbyte (svbSSE): each control byte gives the lengths of four values
// whose data bytes follow one another, so one unaligned 16-byte load at the
// group's first data byte holds all four, and one PSHUFB with a mask looked
// up by the control byte (256 masks of 16 bytes) moves each value's bytes
// into the low bytes of its 32-bit slot and zeroes the rest. A second
// 256-byte table gives the group's data length, the step to the next
// group. The loop decodes four groups per iteration while 64 bytes of
// input remain past the data pointer, then one group while 16 remain, so
// no load passes the end of the data; the last few groups are decoded from
// a zero-padded copy of the data's last 16 bytes on the stack. The data
// lengths are summed as the groups are decoded, and the caller checks the
// total against the input: a truncated block decodes to garbage first and
// is then rejected, never read past.
//
// Usage (run by go generate in codecplugins/varint):
//
//	go run ./internal/gensimd -out varint_amd64.s -stubs varint_amd64_stubs.go
package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/gpusearch/gpusearch/codecplugins/internal/asmgen"
)

func main() {
	c := build.NewContext()
	g := &gen{Context: c}
	g.streamVByte()
	asmgen.Main(c, "codecplugins/varint/internal/gensimd", "varint", "amd64 && !purego", nil)
}

type gen struct{ *build.Context }

// svbTables writes the shuffle masks and data lengths of the 256 control
// bytes and returns them.
func (g *gen) svbTables() (shuffle, lens operand.Mem) {
	var masks [256][16]byte
	var sizes [256]byte
	for c := range 256 {
		off := 0
		for j := range 4 {
			k := c>>(2*j)&3 + 1
			for i := range 4 {
				masks[c][4*j+i] = 0x80 // PSHUFB writes zero
				if i < k {
					masks[c][4*j+i] = byte(off + i)
				}
			}
			off += k
		}
		sizes[c] = byte(off)
	}
	shuffle = g.StaticGlobal("svbShuffle")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for c := range 256 {
		for h := range 2 {
			var w uint64
			for i := range 8 {
				w |= uint64(masks[c][8*h+i]) << (8 * i)
			}
			g.AddDatum(16*c+8*h, operand.U64(w))
		}
	}
	lens = g.StaticGlobal("svbLen")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for q := range 32 {
		var w uint64
		for i := range 8 {
			w |= uint64(sizes[8*q+i]) << (8 * i)
		}
		g.AddDatum(8*q, operand.U64(w))
	}
	return shuffle, lens
}

// streamVByte writes svbSSE.
func (g *gen) streamVByte() {
	shuffleTab, lenTab := g.svbTables()
	g.Function("svbSSE")
	g.Attributes(attr.NOSPLIT)
	// The kernels keep no pointer: without this, every buffer passed to
	// them would move to the heap.
	g.Pragma("noescape")
	g.SignatureExpr("func(dst *uint32, ctrl *byte, data []byte, groups int) (ng int, used int)")
	g.Doc("svbSSE decodes streamvbyte groups 0, 1, ..., groups-1, whose control",
		"bytes are ctrl[0:groups] and whose data start at data[0], into",
		"dst[4g:4g+4], with SSSE3, and returns the groups decoded and the data",
		"bytes they take. It reads no byte past data: it stops early only where",
		"data is shorter than 16 bytes or ends before the groups' data does.")
	dst := g.Load(g.Param("dst"), g.GP64())
	ctrl := g.Load(g.Param("ctrl"), g.GP64())
	src := g.Load(g.Param("data").Base(), g.GP64())
	n := g.Load(g.Param("data").Len(), g.GP64())
	groups := g.Load(g.Param("groups"), g.GP64())
	e, grp := g.GP64(), g.GP64()
	g.XORQ(e, e)
	g.XORQ(grp, grp)
	shuf, lens := g.GP64(), g.GP64()
	g.LEAQ(shuffleTab, shuf)
	g.LEAQ(lenTab, lens)
	// Bounds in the form "last group index" and "last safe start": the
	// four-group loop needs g+4 <= groups and e+64 <= len(src).
	g4, n64 := g.GP64(), g.GP64()
	g.LEAQ(operand.Mem{Base: groups, Disp: -4}, g4)
	g.LEAQ(operand.Mem{Base: n, Disp: -64}, n64)
	one := func(i int) {
		c, t := g.GP64(), g.GP64()
		x, m := reg.X0, reg.X1
		g.MOVBQZX(operand.Mem{Base: ctrl, Index: grp, Scale: 1, Disp: i}, c)
		g.MOVOU(operand.Mem{Base: src, Index: e, Scale: 1}, x)
		g.MOVQ(c, t)
		g.SHLQ(operand.U8(4), t)
		g.MOVOU(operand.Mem{Base: shuf, Index: t, Scale: 1}, m)
		g.PSHUFB(m, x)
		g.MOVOU(x, operand.Mem{Base: dst, Disp: 16 * i})
		g.MOVBQZX(operand.Mem{Base: lens, Index: c, Scale: 1}, t)
		g.ADDQ(t, e)
	}
	g.Label("four")
	g.CMPQ(grp, g4)
	g.JG(operand.LabelRef("single"))
	g.CMPQ(e, n64)
	g.JG(operand.LabelRef("single"))
	for i := range 4 {
		one(i)
	}
	g.ADDQ(operand.U8(4), grp)
	g.ADDQ(operand.U8(64), dst)
	g.JMP(operand.LabelRef("four"))
	g.Label("single")
	n16 := g.GP64()
	g.LEAQ(operand.Mem{Base: n, Disp: -16}, n16)
	g.Label("loop")
	g.CMPQ(grp, groups)
	g.JGE(operand.LabelRef("done"))
	g.CMPQ(e, n16)
	g.JG(operand.LabelRef("tail"))
	one(0)
	g.INCQ(grp)
	g.ADDQ(operand.U8(16), dst)
	g.JMP(operand.LabelRef("loop"))

	// The last groups start fewer than 16 bytes before the end of data:
	// copy the last 16 bytes of data, zero-padded to 48, onto the stack
	// and go on there. Data shorter than 16 bytes is left to the caller.
	g.Label("tail")
	g.CMPQ(n, operand.U8(16))
	g.JL(operand.LabelRef("done"))
	buf := g.AllocLocal(48)
	g.MOVOU(operand.Mem{Base: src, Index: n, Scale: 1, Disp: -16}, reg.X0)
	g.MOVOU(reg.X0, buf)
	g.PXOR(reg.X0, reg.X0)
	g.MOVOU(reg.X0, buf.Offset(16))
	g.MOVOU(reg.X0, buf.Offset(32))
	g.LEAQ(buf, src)
	g.SUBQ(n16, e) // e now counts from the copy's start
	g.Label("padded")
	g.CMPQ(grp, groups)
	g.JGE(operand.LabelRef("back"))
	g.CMPQ(e, operand.U8(32))
	g.JG(operand.LabelRef("back")) // only a truncated block gets here
	one(0)
	g.INCQ(grp)
	g.ADDQ(operand.U8(16), dst)
	g.JMP(operand.LabelRef("padded"))
	g.Label("back")
	g.ADDQ(n16, e)
	g.Label("done")
	g.Store(grp, g.Return("ng"))
	g.Store(e, g.Return("used"))
	g.RET()
}
