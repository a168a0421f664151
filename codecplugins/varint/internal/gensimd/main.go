// Command gensimd writes package varint's assembly decoders with avo.
//
// streamvbyte (svbSSE): each control byte gives the lengths of four values
// whose data bytes follow one another, so one unaligned 16-byte load at the
// group's first data byte holds all four, and one PSHUFB with a mask looked
// up by the control byte (256 masks of 16 bytes) moves each value's bytes
// into the low bytes of its 32-bit slot and zeroes the rest. A second
// 256-byte table gives the group's data length, the step to the next
// group. The caller has summed the group sizes from the control bytes and
// checked them against the input, so the kernel knows where each load may
// reach: a group followed by three more (of four bytes at least) can load
// 16 bytes from its first byte on, and each of the last three groups loads
// the 16 bytes that end with its last byte, shuffled by a second table of
// masks shifted to match. No load passes the data, none needs a copy (a
// copy on the stack would make the loads wait on store forwarding), and
// the loop counts depend only on the number of groups, so that for full
// blocks every branch is predicted.
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
	shuffle, shuffleEnd, lens := g.svbTables()
	g.streamVByte("svbSSE", false, shuffle, shuffleEnd, lens)
	g.streamVByte("svbAVX", true, shuffle, shuffleEnd, lens)
	asmgen.Main(c, "codecplugins/varint/internal/gensimd", "varint", "amd64 && !purego", nil)
}

type gen struct{ *build.Context }

// svbTables writes the shuffle masks and data lengths of the 256 control
// bytes and returns them: the masks for data loaded from the group's first
// byte on (shuffle), and those for data loaded so that the group's last
// byte is the register's last (shuffleEnd).
func (g *gen) svbTables() (shuffle, shuffleEnd, lens operand.Mem) {
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
	table := func(name string, shift func(c int) byte) operand.Mem {
		m := g.StaticGlobal(name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for c := range 256 {
			for h := range 2 {
				var w uint64
				for i := range 8 {
					b := masks[c][8*h+i]
					if b != 0x80 {
						b += shift(c)
					}
					w |= uint64(b) << (8 * i)
				}
				g.AddDatum(16*c+8*h, operand.U64(w))
			}
		}
		return m
	}
	shuffle = table("svbShuffle", func(int) byte { return 0 })
	shuffleEnd = table("svbShuffleEnd", func(c int) byte { return 16 - sizes[c] })
	lens = g.StaticGlobal("svbLen")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for q := range 32 {
		var w uint64
		for i := range 8 {
			w |= uint64(sizes[8*q+i]) << (8 * i)
		}
		g.AddDatum(8*q, operand.U64(w))
	}
	return shuffle, shuffleEnd, lens
}

// streamVByte writes the decoder name: with vex, the same kernel in AVX
// encoding, whose shuffle reads its mask straight from the table (legacy
// SSE would require the table's rows aligned).
func (g *gen) streamVByte(name string, vex bool, shuffleTab, shuffleEndTab, lenTab operand.Mem) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	// The kernel keeps no pointer: without this, every buffer passed to
	// it would move to the heap.
	g.Pragma("noescape")
	g.SignatureExpr("func(dst *uint32, ctrl *byte, data *byte, groups int)")
	isa := "SSSE3"
	if vex {
		isa = "AVX"
	}
	g.Doc(name+" decodes streamvbyte groups 0..groups-1, whose control bytes are",
		"ctrl[0:groups] and whose data start at data[0], into dst[0:4*groups], with",
		isa+". The caller has checked that data holds the groups' data, as the",
		"control bytes give its size, and that groups >= 6.")
	dst := g.Load(g.Param("dst"), g.GP64())
	ctrl := g.Load(g.Param("ctrl"), g.GP64())
	src := g.Load(g.Param("data"), g.GP64())
	groups := g.Load(g.Param("groups"), g.GP64())
	shuf, shufEnd, lens := g.GP64(), g.GP64(), g.GP64()
	g.LEAQ(shuffleTab, shuf)
	g.LEAQ(shuffleEndTab, shufEnd)
	g.LEAQ(lenTab, lens)
	// Group i's 16-byte load from its first byte stays inside the data
	// when at least three groups, of four bytes or more, follow it: those
	// groups run from there. The last three load the 16 bytes that end
	// with their own last byte instead, which the five groups or more
	// before them make sure exist.
	direct := g.GP64()
	g.LEAQ(operand.Mem{Base: ctrl, Index: groups, Scale: 1, Disp: -3}, direct) // first control byte not direct
	one := func(i int, last bool) {
		c, t := g.GP64(), g.GP64()
		x, m := reg.X0, reg.X1
		g.MOVBQZX(operand.Mem{Base: ctrl, Disp: i}, c)
		g.MOVBQZX(operand.Mem{Base: lens, Index: c, Scale: 1}, t)
		load := g.MOVOU
		if vex {
			load = g.VMOVDQU
		}
		if last {
			g.ADDQ(t, src)
			load(operand.Mem{Base: src, Disp: -16}, x)
		} else {
			load(operand.Mem{Base: src}, x)
			g.ADDQ(t, src)
		}
		g.SHLQ(operand.U8(4), c)
		tab := shuf
		if last {
			tab = shufEnd
		}
		mask := operand.Mem{Base: tab, Index: c, Scale: 1}
		if vex {
			g.VPSHUFB(mask, x, x)
			g.VMOVDQU(x, operand.Mem{Base: dst, Disp: 16 * i})
			return
		}
		g.MOVOU(mask, m)
		g.PSHUFB(m, x)
		g.MOVOU(x, operand.Mem{Base: dst, Disp: 16 * i})
	}
	four := g.GP64()
	g.LEAQ(operand.Mem{Base: direct, Disp: -4}, four) // last start of a four-group step
	g.Label("four")
	g.CMPQ(ctrl, four)
	g.JA(operand.LabelRef("single"))
	for i := range 4 {
		one(i, false)
	}
	g.ADDQ(operand.U8(4), ctrl)
	g.ADDQ(operand.U8(64), dst)
	g.JMP(operand.LabelRef("four"))
	g.Label("single")
	g.CMPQ(ctrl, direct)
	g.JAE(operand.LabelRef("last"))
	one(0, false)
	g.INCQ(ctrl)
	g.ADDQ(operand.U8(16), dst)
	g.JMP(operand.LabelRef("single"))
	g.Label("last")
	for i := range 3 {
		one(i, true)
	}
	g.RET()
}
