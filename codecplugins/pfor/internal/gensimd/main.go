// Command gensimd writes package pfor's assembly for fastpfor's exceptions
// with avo: scatterHighs writes a block's exceptions' high parts into the
// patch that bitpack's patched kernel adds as it decodes the block into
// running sums, and patchValues adds them to a block's decoded values.
// Both read the high parts as packed, hb bits each, with one 64-bit load
// apiece (the caller guarantees 7 readable bytes after them), need BMI2
// besides, and take each exception in a few instructions and no branch
// but the loop's and the positions' checks:
// Go's code for the same loop spilled registers and checked bounds, and
// a walk that branched on which exceptions fall in a vector of sums
// mispredicted about once an exception.
//
// Usage (run by go generate in codecplugins/pfor):
//
//	go run ./internal/gensimd -out patch_amd64.s -stubs patch_amd64_stubs.go
package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/gpusearch/gpusearch/internal/asmgen"
)

func main() {
	c := build.NewContext()
	scatter(c)
	patchValues(c)
	asmgen.Main(c, "codecplugins/pfor/internal/gensimd", "pfor", "amd64 && !purego", nil)
}

// highs holds the registers that read the exceptions one by one: the
// positions, the packed high parts, their width, the slot width b (none
// where the high parts are not shifted) and the bit offset of the next
// high part.
type highs struct {
	pos, packed, hb, b, mask, bit reg.GPVirtual
}

// loadHighs loads the arguments that both functions share, with shift the
// slot width b, and sets up the mask of hb bits and the first bit offset.
func loadHighs(c *build.Context, shift bool) highs {
	h := highs{
		pos:    c.Load(c.Param("pos"), c.GP64()).(reg.GPVirtual),
		packed: c.Load(c.Param("highs"), c.GP64()).(reg.GPVirtual),
		hb:     c.Load(c.Param("hb"), c.GP64()).(reg.GPVirtual),
		mask:   c.GP64(),
		bit:    c.GP64(),
	}
	if shift {
		h.b = c.Load(c.Param("b"), c.GP64()).(reg.GPVirtual)
	}
	// mask = 1<<hb - 1; hb < 32.
	c.MOVQ(operand.U32(1), h.mask)
	c.SHLXQ(h.hb, h.mask, h.mask)
	c.DECQ(h.mask)
	c.XORQ(h.bit, h.bit)
	return h
}

// next writes the next exception's high part plus one into v, shifted
// left by b where h has it, and moves the bit offset on. The shifts by a
// register are BMI2's SHRX and SHLX, one instruction each and no flags,
// where a shift by CL costs a move into CX and, on Intel, three
// micro-ops that wait on the flags.
func (h highs) next(c *build.Context, v reg.GPVirtual) {
	at, sh := c.GP64(), c.GP64()
	c.MOVQ(h.bit, at)
	c.SHRQ(operand.U8(3), at)
	c.MOVQ(h.bit, sh)
	c.ANDL(operand.U8(7), sh.As32())
	c.SHRXQ(sh, operand.Mem{Base: h.packed, Index: at, Scale: 1}, v)
	c.ANDQ(h.mask, v)
	c.INCQ(v)
	if h.b != nil {
		c.SHLXL(h.b.As32(), v.As32(), v.As32())
	}
	c.ADDQ(h.hb, h.bit)
}

// scatter writes scatterHighs.
func scatter(c *build.Context) {
	c.Function("scatterHighs")
	asmgen.NoEscape(c)
	c.SignatureExpr("func(patch *[128]uint32, pos *byte, e int, highs *byte, hb int, n int) (sum uint64, ok bool)")
	c.Doc("scatterHighs writes each of the e >= 1 exceptions' high parts plus one",
		"into patch at its position, pos[:e], and returns their sum; the high",
		"parts are packed hb bits each at highs, with 7 readable bytes after",
		"them. It reports false, having written patch up to the one before the",
		"first bad one, where the positions do not increase strictly below",
		"n <= 128.")
	patch := c.Load(c.Param("patch"), c.GP64())
	e := c.Load(c.Param("e"), c.GP64())
	h := loadHighs(c, false)
	sum := c.GP64()
	c.XORQ(sum, sum)
	walk(c, h, e, func(p, v reg.GPVirtual) {
		c.MOVL(v.As32(), operand.Mem{Base: patch, Index: p, Scale: 4})
		c.ADDQ(v, sum)
	})
	c.Store(sum, c.Return("sum"))
	lastPosition(c)
}

// walk writes the loops over the e exceptions: each gets its position p,
// checked (else a branch to label "bad"), and its value v, the high part
// plus one, shifted left by b where h has it; each writes what is done
// with them. High parts of 0 bits give every exception the value 1 << b,
// set once with nothing read (a sixth of the RFC passages' docid blocks
// with exceptions, half of their frequency blocks).
func walk(c *build.Context, h highs, e reg.Register, each func(p, v reg.GPVirtual)) {
	i, p, v := c.GP64(), c.GP64(), c.GP64()
	c.XORQ(i, i)
	o := firstPosition(c)
	c.TESTQ(h.hb, h.hb)
	c.JZ(operand.LabelRef("same"))
	c.Label("loop")
	h.position(c, i, p, o)
	h.next(c, v)
	each(p, v)
	c.INCQ(i)
	c.CMPQ(i, e)
	c.JL(operand.LabelRef("loop"))
	c.JMP(operand.LabelRef("done"))
	c.Label("same")
	c.MOVL(operand.U32(1), v.As32())
	if h.b != nil {
		c.SHLXL(h.b.As32(), v.As32(), v.As32())
	}
	c.Label("each")
	h.position(c, i, p, o)
	each(p, v)
	c.INCQ(i)
	c.CMPQ(i, e)
	c.JL(operand.LabelRef("each"))
	c.Label("done")
}

// order holds the registers that check the positions: the last seen, -1
// before the first, and the parameter n they must stay below.
type order struct{ prev, n reg.GPVirtual }

// firstPosition sets up the positions' check.
func firstPosition(c *build.Context) order {
	o := order{prev: c.GP64(), n: c.Load(c.Param("n"), c.GP64()).(reg.GPVirtual)}
	c.MOVQ(operand.I32(-1), o.prev)
	return o
}

// position loads exception i's position into p and branches to label
// "bad", before anything is written there, unless it is above the last
// and below n.
func (h highs) position(c *build.Context, i, p reg.GPVirtual, o order) {
	c.MOVBQZX(operand.Mem{Base: h.pos, Index: i, Scale: 1}, p)
	c.CMPQ(p, o.prev)
	c.JLE(operand.LabelRef("bad"))
	c.CMPQ(p, o.n)
	c.JGE(operand.LabelRef("bad"))
	c.MOVQ(p, o.prev)
}

// lastPosition ends the function: it returns ok, true, and writes label
// "bad", which returns false.
func lastPosition(c *build.Context) {
	r, err := c.Return("ok").Resolve()
	if err != nil {
		panic(err)
	}
	c.MOVB(operand.U8(1), r.Addr)
	c.RET()
	c.Label("bad")
	c.MOVB(operand.U8(0), r.Addr)
	c.RET()
}

// patchValues writes patchValues: scalar, since each exception touches
// one value.
func patchValues(c *build.Context) {
	c.Function("patchValues")
	asmgen.NoEscape(c)
	c.SignatureExpr("func(dst *[128]uint32, pos *byte, e int, highs *byte, hb int, b int, n int) (ok bool)")
	c.Doc("patchValues adds to dst the e >= 1 exceptions at the positions",
		"pos[:e], each (high part+1) << b to its value; the high parts are",
		"packed hb bits each at highs, with 7 readable bytes after them. It",
		"reports false, having patched dst up to the one before the first bad",
		"one, where the positions do not increase strictly below n <= 128.")
	dst := c.Load(c.Param("dst"), c.GP64())
	e := c.Load(c.Param("e"), c.GP64())
	h := loadHighs(c, true)
	walk(c, h, e, func(p, v reg.GPVirtual) {
		c.ADDL(v.As32(), operand.Mem{Base: dst, Index: p, Scale: 4})
	})
	lastPosition(c)
}
