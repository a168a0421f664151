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

	"github.com/gpusearch/gpusearch/internal/asmgen"
	"github.com/gpusearch/gpusearch/internal/simd"
)

func main() {
	c := build.NewContext()
	g := &gen{Context: c}
	shuffle, shuffleEnd, lens := g.svbTables()
	g.streamVByte("svbSSE", false, shuffle, shuffleEnd, lens)
	g.streamVByte("svbAVX", true, shuffle, shuffleEnd, lens)
	fields := g.svbFieldMasks()
	g.svbBlock(false, shuffle, shuffleEnd, lens, fields)
	g.svbBlock(true, shuffle, shuffleEnd, lens, fields)
	g.maskedVByte()
	g.g8iu()
	g.g8cu()
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
	asmgen.NoEscape(g.Context)
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
		c := g.GP64()
		g.MOVBQZX(operand.Mem{Base: ctrl, Disp: i}, c)
		x := g.svbGroup(vex, last, c, src, lens, shuf, shufEnd)
		if vex {
			g.VMOVDQU(x, operand.Mem{Base: dst, Disp: 16 * i})
			return
		}
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

// svbFieldMasks writes the byte masks 0x33 and 0x0F, 16 of each, that
// svbBlock sums a control byte's four 2-bit fields with, and 0x55, with
// which it finds a field of 3.
func (g *gen) svbFieldMasks() operand.Mem {
	m := g.StaticGlobal("svbFields")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for i, w := range []uint64{0x3333333333333333, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0F0F0F0F0F0F0F0F,
		0x5555555555555555, 0x5555555555555555} {
		g.AddDatum(8*i, operand.U64(w))
	}
	return m
}

// svbMaxBase is the largest base from which svbBlockPrefix adds a block
// up: 128 values below 2^24 added to it stay below 2^32.
const svbMaxBase = 1<<32 - 1 - 128*(1<<24-1)

// svbBlock writes svbBlock, the decoder of a whole 128-value streamvbyte
// block in one call: its 32 control bytes, then their data. It adds the
// block's data length up from the control bytes with SIMD (each byte's
// four 2-bit fields summed in place by two mask-shift-add steps, then
// PSADBW across the bytes), checks it against n, and decodes the 32 groups
// unrolled as streamVByte does, the last three through loads that end at
// their last byte, so that it never reads past the block. The groups are
// written twice, in SSE and in AVX encoding (whose shuffle reads its mask
// straight from the table), and the argument level picks one: one entry for
// both levels keeps the Go function that calls it small enough to inline.
//
// With prefix it writes svbBlockPrefix, which turns the values into
// running sums from base while they are in registers (two shift-and-add
// steps within a group, one add to carry the sum from group to group). It
// takes only blocks whose sums cannot pass 2^32-1, as it has no 64-bit
// sum to find the overflow with: no value of four bytes and a base of at
// most svbMaxBase; it reports false for the others.
func (g *gen) svbBlock(prefix bool, shuffleTab, shuffleEndTab, lenTab, fields operand.Mem) {
	name := "svbBlock"
	if prefix {
		name = "svbBlockPrefix"
	}
	g.Function(name)
	asmgen.NoEscape(g.Context)
	if prefix {
		g.SignatureExpr("func(dst *[128]uint32, src *byte, n int, base uint32, level uint8) bool")
		g.Doc(name+" decodes the 128-value streamvbyte block of the n bytes at src",
			"into running sums from base in dst, with AVX at level 2 (simd.AVX2)",
			"and else SSSE3, and reports true; it reports false where n is shorter",
			"than the block, a value has four bytes or base is above",
			"2^32-1 - 128*(2^24-1).")
	} else {
		g.SignatureExpr("func(dst *[128]uint32, src *byte, n int, level uint8) bool")
		g.Doc(name+" decodes the 128-value streamvbyte block of the n bytes at src",
			"into dst, with AVX at level 2 (simd.AVX2) and else SSSE3, and reports",
			"true, or reports false where n is shorter than the block.")
	}
	n := g.Load(g.Param("n"), g.GP64())
	g.CMPQ(n, operand.U8(32))
	g.JL(operand.LabelRef("fail"))
	src := g.Load(g.Param("src"), g.GP64())
	fm := g.GP64()
	g.LEAQ(fields, fm)
	// In registers: legacy SSE would require a memory operand aligned.
	m33, m0f := reg.X4, reg.X5
	g.MOVOU(operand.Mem{Base: fm}, m33)
	g.MOVOU(operand.Mem{Base: fm, Disp: 16}, m0f)
	// Per byte: x = (c & 0x33) + (c>>2 & 0x33) holds two fields' sums in
	// its nibbles, (x & 0x0F) + (x>>4 & 0x0F) all four. PSRLW shifts
	// 16-bit lanes, but the masks drop the bits that cross bytes.
	sum := func(c, t reg.VecPhysical) {
		for _, st := range []struct {
			sh   uint8
			mask reg.VecPhysical
		}{{2, m33}, {4, m0f}} {
			g.MOVO(c, t)
			g.PSRLW(operand.U8(st.sh), t)
			g.PAND(st.mask, t)
			g.PAND(st.mask, c)
			g.PADDB(t, c)
		}
	}
	c0, c1, t := reg.X0, reg.X1, reg.X2
	g.MOVOU(operand.Mem{Base: src}, c0)
	g.MOVOU(operand.Mem{Base: src, Disp: 16}, c1)
	if prefix {
		// A field of 3 has both its bits set: c & c>>1 & 0x55 is not
		// zero in any byte that holds one.
		base := g.Load(g.Param("base"), g.GP32())
		g.CMPL(base, operand.U32(svbMaxBase))
		g.JA(operand.LabelRef("fail"))
		m55, any := reg.X6, reg.X7
		g.MOVOU(operand.Mem{Base: fm, Disp: 32}, m55)
		g.MOVO(c0, any)
		g.PSRLW(operand.U8(1), any)
		g.PAND(c0, any)
		g.MOVO(c1, t)
		g.PSRLW(operand.U8(1), t)
		g.PAND(c1, t)
		g.POR(t, any)
		g.PAND(m55, any)
		g.PXOR(t, t)
		g.PCMPEQB(t, any)
		mask := g.GP32()
		g.PMOVMSKB(any, mask)
		g.CMPL(mask, operand.U32(0xFFFF))
		g.JNE(operand.LabelRef("fail"))
		g.MOVD(base, prevSum)
		g.PSHUFD(operand.U8(0), prevSum, prevSum)
	}
	sum(c0, t)
	sum(c1, t)
	g.PADDB(c1, c0)
	g.PXOR(t, t)
	g.PSADBW(t, c0)
	g.PSHUFD(operand.U8(0x4E), c0, t)
	g.PADDQ(t, c0)
	total := g.GP64()
	g.MOVQ(c0, total)
	// The block takes 32 control bytes, 128 data bytes and one more
	// for each unit of the fields.
	g.ADDQ(operand.U32(32+128), total)
	g.CMPQ(total, n)
	g.JG(operand.LabelRef("fail"))
	asmgen.PrefetchAhead(g.Context, src, 3)
	dst := g.Load(g.Param("dst"), g.GP64())
	data := g.GP64()
	g.LEAQ(operand.Mem{Base: src, Disp: 32}, data)
	shuf, shufEnd, lens := g.GP64(), g.GP64(), g.GP64()
	g.LEAQ(shuffleTab, shuf)
	g.LEAQ(shuffleEndTab, shufEnd)
	g.LEAQ(lenTab, lens)
	g.MOVB(operand.U8(1), asmgen.Ret(g.Context))
	level := g.Load(g.Param("level"), g.GP8())
	g.CMPB(level, operand.U8(simd.AVX2))
	g.JE(operand.LabelRef("avx"))
	// Groups 0..28 have at least three groups of four bytes or more after
	// them, so a 16-byte load from their first byte stays in the block;
	// the last three load the 16 bytes that end with their own last byte.
	// The control bytes come eight at a time into a register, to spare a
	// load per group: the loads, four a group otherwise, limit the loop.
	groups := func(vex bool) {
		keys := g.GP64()
		for i := range 32 {
			if i%8 == 0 {
				g.MOVQ(operand.Mem{Base: src, Disp: i}, keys)
			}
			c := g.GP64()
			g.MOVBQZX(keys.As8(), c)
			if i%8 != 7 {
				g.SHRQ(operand.U8(8), keys)
			}
			x := g.svbGroup(vex, i >= 29, c, data, lens, shuf, shufEnd)
			if prefix {
				g.svbPrefix(vex, x)
			}
			if vex {
				g.VMOVDQU(x, operand.Mem{Base: dst, Disp: 16 * i})
			} else {
				g.MOVOU(x, operand.Mem{Base: dst, Disp: 16 * i})
			}
		}
		g.RET()
	}
	groups(false)
	g.Label("avx")
	groups(true)
	g.Label("fail")
	g.MOVB(operand.U8(0), asmgen.Ret(g.Context))
	g.RET()
}

// prevSum holds svbBlockPrefix's running sum so far in every 32-bit
// element.
var prevSum = reg.X8

// svbPrefix turns the four values of x into running sums from prevSum and
// adds their total to prevSum.
func (g *gen) svbPrefix(vex bool, x reg.VecPhysical) {
	t, total := reg.X2, reg.X3
	for _, n := range []uint8{4, 8} {
		if vex {
			g.VPSLLDQ(operand.U8(n), x, t)
			g.VPADDD(t, x, x)
			continue
		}
		g.MOVO(x, t)
		g.PSLLO(operand.U8(n), t)
		g.PADDL(t, x)
	}
	if vex {
		g.VPSHUFD(operand.U8(0xFF), x, total)
		g.VPADDD(prevSum, x, x)
		g.VPADDD(total, prevSum, prevSum)
		return
	}
	g.PSHUFD(operand.U8(0xFF), x, total)
	g.PADDL(prevSum, x)
	g.PADDL(total, prevSum)
}

// svbGroup decodes the streamvbyte group whose control byte is in c into
// X0: its length from the table at lens, its bytes from data, which moves
// past them (the last groups of a run load the 16 bytes that end with
// their own last byte, the others the 16 from their first), shuffled by
// the table at shuf, or at shufEnd for the last groups.
func (g *gen) svbGroup(vex, last bool, c, data, lens, shuf, shufEnd reg.Register) reg.VecPhysical {
	l := g.GP64()
	x, m := reg.X0, reg.X1
	g.MOVBQZX(operand.Mem{Base: lens, Index: c, Scale: 1}, l)
	load := g.MOVOU
	if vex {
		load = g.VMOVDQU
	}
	if last {
		g.ADDQ(l, data)
		load(operand.Mem{Base: data, Disp: -16}, x)
	} else {
		load(operand.Mem{Base: data}, x)
		g.ADDQ(l, data)
	}
	g.SHLQ(operand.U8(4), c)
	tab := shuf
	if last {
		tab = shufEnd
	}
	mask := operand.Mem{Base: tab, Index: c, Scale: 1}
	if vex {
		g.VPSHUFB(mask, x, x)
	} else {
		g.MOVOU(mask, m)
		g.PSHUFB(m, x)
	}
	return x
}

// maskedVByteTables writes, for each pattern m of the continuation bits of
// 8 bytes, how many whole values of one or two bytes start the 8 bytes
// (stopping at a longer one or at one that runs past them), the bytes those
// take, and the PSHUFB mask that puts value j's bytes into 16-bit lane j.
func (g *gen) maskedVByteTables() (shuffle, count, used operand.Mem) {
	var masks [256][16]byte
	var counts, sizes [256]byte
	for m := range 256 {
		for i := range masks[m] {
			masks[m][i] = 0x80
		}
		start, j := 0, 0
		for b := range 8 {
			if m>>b&1 != 0 {
				if b-start >= 1 {
					break // a third byte: not for the table
				}
				continue
			}
			masks[m][2*j] = byte(start)
			if b > start {
				masks[m][2*j+1] = byte(b)
			}
			j++
			start = b + 1
		}
		counts[m], sizes[m] = byte(j), byte(start)
	}
	shuffle = g.StaticGlobal("suShuffle")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for m := range 256 {
		for h := range 2 {
			var w uint64
			for i := range 8 {
				w |= uint64(masks[m][8*h+i]) << (8 * i)
			}
			g.AddDatum(16*m+8*h, operand.U64(w))
		}
	}
	bytesTable := func(name string, v *[256]byte) operand.Mem {
		t := g.StaticGlobal(name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for q := range 32 {
			var w uint64
			for i := range 8 {
				w |= uint64(v[8*q+i]) << (8 * i)
			}
			g.AddDatum(8*q, operand.U64(w))
		}
		return t
	}
	return shuffle, bytesTable("suCount", &counts), bytesTable("suUsed", &sizes)
}

// maskedVByte3Tables is maskedVByteTables for values of one to three bytes
// in the first 12 bytes, each put into a 32-bit lane: up to 4 values, the
// table indexed by the continuation bits of 12 bytes.
func (g *gen) maskedVByte3Tables() (shuffle, count, used operand.Mem) {
	const rows = 1 << 12
	masks := make([][16]byte, rows)
	counts := make([]byte, rows)
	sizes := make([]byte, rows)
	for m := range rows {
		for i := range masks[m] {
			masks[m][i] = 0x80
		}
		start, j := 0, 0
		for b := 0; b < 12 && j < 4; b++ {
			if m>>b&1 != 0 {
				if b-start >= 2 {
					break // a fourth byte: not for the table
				}
				continue
			}
			for i := start; i <= b; i++ {
				masks[m][4*j+i-start] = byte(i)
			}
			j++
			start = b + 1
		}
		counts[m], sizes[m] = byte(j), byte(start)
	}
	shuffle = g.StaticGlobal("su3Shuffle")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for m := range rows {
		for h := range 2 {
			var w uint64
			for i := range 8 {
				w |= uint64(masks[m][8*h+i]) << (8 * i)
			}
			g.AddDatum(16*m+8*h, operand.U64(w))
		}
	}
	bytesTable := func(name string, v []byte) operand.Mem {
		t := g.StaticGlobal(name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for q := range len(v) / 8 {
			var w uint64
			for i := range 8 {
				w |= uint64(v[8*q+i]) << (8 * i)
			}
			g.AddDatum(8*q, operand.U64(w))
		}
		return t
	}
	return shuffle, bytesTable("su3Count", counts), bytesTable("su3Used", sizes)
}

// maskedVByte writes suSSE, a masked VByte decoder for varint-SU: PMOVMSKB
// gathers the continuation bits of the next 16 bytes. With none set, the
// 16 bytes are 16 values, widened by four PMOVZXBD straight from memory.
// Otherwise the bits of the first 8 bytes pick a row of the tables: one
// PSHUFB puts up to 8 values of one or two bytes into 16-bit lanes, two
// masks and a shift drop the continuation bits, and two PMOVZXWD widen
// them. Where the first value has three bytes, the bits of the first 12
// bytes pick a row of a 4096-row table instead, for up to 4 values of one
// to three bytes in 32-bit lanes. A value of four or five bytes is decoded
// alone: its length is the first clear bit of the mask, and shifts and
// masks of one 8-byte load join its 7-bit groups.
func (g *gen) maskedVByte() {
	shuffleTab, countTab, usedTab := g.maskedVByteTables()
	shuffle3Tab, count3Tab, used3Tab := g.maskedVByte3Tables()
	lanes3 := g.StaticGlobal("su3Masks") // the 7-bit groups of 32-bit lanes: bits 0-6, 7-13, 14-20
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for q, m := range []uint64{0x7F, 0x7F << 7, 0x7F << 14} {
		g.AddDatum(16*q, operand.U64(m|m<<32))
		g.AddDatum(16*q+8, operand.U64(m|m<<32))
	}
	lowMask := g.StaticGlobal("suLow")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	g.AddDatum(0, operand.U64(0x007F007F007F007F))
	g.AddDatum(8, operand.U64(0x007F007F007F007F))
	highMask := g.StaticGlobal("suHigh")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	g.AddDatum(0, operand.U64(0x3F803F803F803F80))
	g.AddDatum(8, operand.U64(0x3F803F803F803F80))
	byteMask := g.StaticGlobal("suBytes") // byteMask[k]: the low k bytes, k = 0..7
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for k := range 8 {
		g.AddDatum(8*k, operand.U64(uint64(1)<<(8*k)-1))
	}

	g.Function("suSSE")
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *uint32, src []byte, n int) (decoded int, used int)")
	g.Doc("suSSE decodes varint-SU values from src into dst with SSE4.1 while at",
		"least 16 values are left to decode and 16 bytes are left in src, and",
		"returns the values decoded and the bytes they took. It stops early, before",
		"a value longer than 5 bytes or one that overflows 32 bits, for the caller",
		"to report.")
	dst := g.Load(g.Param("dst"), g.GP64())
	base := g.Load(g.Param("src").Base(), g.GP64())
	n := g.Load(g.Param("src").Len(), g.GP64())
	left := g.Load(g.Param("n"), g.GP64())
	p, end := g.GP64(), g.GP64()
	g.MOVQ(base, p)
	g.LEAQ(operand.Mem{Base: base, Index: n, Scale: 1, Disp: -16}, end) // last start of a 16-byte load
	shuf, cnt, used, bm := g.GP64(), g.GP64(), g.GP64(), g.GP64()
	g.LEAQ(shuffleTab, shuf)
	g.LEAQ(countTab, cnt)
	g.LEAQ(usedTab, used)
	g.LEAQ(byteMask, bm)
	lo, hi := reg.X14, reg.X15
	g.MOVOU(lowMask, lo)
	g.MOVOU(highMask, hi)
	g.SUBQ(operand.U8(16), left) // values left beyond the next 16

	g.Label("loop")
	g.TESTQ(left, left)
	g.JS(operand.LabelRef("done"))
	g.CMPQ(p, end)
	g.JA(operand.LabelRef("done"))
	x, m := reg.X0, g.GP32()
	g.MOVOU(operand.Mem{Base: p}, x)
	g.PMOVMSKB(x, m)
	g.TESTL(m, m)
	g.JNZ(operand.LabelRef("mixed"))
	for k := range 4 {
		g.PMOVZXBD(operand.Mem{Base: p, Disp: 4 * k}, reg.X1)
		g.MOVOU(reg.X1, operand.Mem{Base: dst, Disp: 16 * k})
	}
	g.ADDQ(operand.U8(16), p)
	g.ADDQ(operand.U8(64), dst)
	g.SUBQ(operand.U8(16), left)
	g.JMP(operand.LabelRef("loop"))

	g.Label("mixed")
	m8, k := g.GP64(), g.GP64()
	g.MOVBQZX(m.As8(), m8)
	g.MOVBQZX(operand.Mem{Base: cnt, Index: m8, Scale: 1}, k)
	g.TESTQ(k, k)
	g.JZ(operand.LabelRef("three"))
	t := g.GP64()
	g.MOVQ(m8, t)
	g.SHLQ(operand.U8(4), t)
	g.MOVOU(operand.Mem{Base: shuf, Index: t, Scale: 1}, reg.X1)
	g.PSHUFB(reg.X1, x)
	g.MOVO(x, reg.X2)
	g.PAND(lo, x)
	g.PSRLW(operand.U8(1), reg.X2)
	g.PAND(hi, reg.X2)
	g.POR(reg.X2, x)
	g.PMOVZXWD(x, reg.X1)
	g.MOVOU(reg.X1, operand.Mem{Base: dst})
	g.PSRLO(operand.U8(8), x)
	g.PMOVZXWD(x, reg.X1)
	g.MOVOU(reg.X1, operand.Mem{Base: dst, Disp: 16})
	g.MOVBQZX(operand.Mem{Base: used, Index: m8, Scale: 1}, t)
	g.ADDQ(t, p)
	g.LEAQ(operand.Mem{Base: dst, Index: k, Scale: 4}, dst)
	g.SUBQ(k, left)
	g.JMP(operand.LabelRef("loop"))

	// Up to four values of one to three bytes, a three-byte one first,
	// each into a 32-bit lane.
	g.Label("three")
	m12 := g.GP64()
	g.MOVL(m, m12.As32())
	g.ANDQ(operand.U32(0xFFF), m12)
	g.LEAQ(count3Tab, t)
	g.MOVBQZX(operand.Mem{Base: t, Index: m12, Scale: 1}, k)
	g.TESTQ(k, k)
	g.JZ(operand.LabelRef("long"))
	g.MOVQ(m12, t)
	g.SHLQ(operand.U8(4), t)
	s3 := g.GP64()
	g.LEAQ(shuffle3Tab, s3)
	g.MOVOU(operand.Mem{Base: s3, Index: t, Scale: 1}, reg.X1)
	g.PSHUFB(reg.X1, x)
	g.LEAQ(lanes3, t)
	g.MOVOU(operand.Mem{Base: t}, reg.X3)
	g.PAND(x, reg.X3) // bits 0-6
	for q := 1; q <= 2; q++ {
		g.MOVO(x, reg.X2)
		g.PSRLL(operand.U8(q), reg.X2)
		g.MOVOU(operand.Mem{Base: t, Disp: 16 * q}, reg.X1)
		g.PAND(reg.X1, reg.X2)
		g.POR(reg.X2, reg.X3)
	}
	g.MOVOU(reg.X3, operand.Mem{Base: dst})
	g.LEAQ(used3Tab, t)
	g.MOVBQZX(operand.Mem{Base: t, Index: m12, Scale: 1}, t)
	g.ADDQ(t, p)
	g.LEAQ(operand.Mem{Base: dst, Index: k, Scale: 4}, dst)
	g.SUBQ(k, left)
	g.JMP(operand.LabelRef("loop"))

	// One value of 4 or 5 bytes: its last byte is the first whose
	// continuation bit is clear.
	g.Label("long")
	g.NOTL(m)
	g.BSFL(m, m) // length-1
	g.CMPL(m, operand.U8(4))
	g.JA(operand.LabelRef("done")) // longer than 5 bytes: corrupt
	w, v := g.GP64(), g.GP64()
	g.MOVQ(operand.Mem{Base: p}, w)
	g.MOVL(m, m8.As32())
	g.INCQ(m8) // length
	g.ANDQ(operand.Mem{Base: bm, Index: m8, Scale: 8}, w)
	// A fifth byte may hold 4 value bits (w's bits 32..35); bits 4..6 of
	// it (w's bits 36..38) would overflow 32 bits.
	g.MOVQ(w, t)
	g.SHRQ(operand.U8(36), t)
	g.ANDQ(operand.U8(7), t)
	g.JNZ(operand.LabelRef("done"))
	g.MOVQ(w, v)
	g.ANDQ(operand.U8(0x7F), v)
	for i := 1; i <= 3; i++ {
		g.MOVQ(w, t)
		g.SHRQ(operand.U8(i), t)
		g.ANDQ(operand.U32(0x7F<<(7*i)), t)
		g.ORQ(t, v)
	}
	// Value bits 28..31; the mask sign-extends to 64 bits, whose upper
	// half is zero in w>>4 after the overflow check.
	g.MOVQ(w, t)
	g.SHRQ(operand.U8(4), t)
	g.ANDQ(operand.I32(-0x10000000), t)
	g.ORQ(t, v)
	g.MOVL(v.As32(), operand.Mem{Base: dst})
	g.ADDQ(m8, p)
	g.ADDQ(operand.U8(4), dst)
	g.DECQ(left)
	g.JMP(operand.LabelRef("loop"))

	g.Label("done")
	g.ADDQ(operand.U8(16), left)
	n0 := g.Load(g.Param("n"), g.GP64())
	g.SUBQ(left, n0)
	g.Store(n0, g.Return("decoded"))
	g.SUBQ(base, p)
	g.Store(p, g.Return("used"))
	g.RET()
}

// g8iu writes g8iuSSE: a varint-G8IU group is a descriptor byte and 8 data
// bytes, so one 8-byte load and two PSHUFB with the descriptor's masks (a
// 256-row table of 32 bytes) put its up to 8 values into 8 slots, two
// stores write all 8 (the next group overwrites the unused ones, as in the
// Go loop), and a second table gives the count. Descriptors the Go decoder
// rejects (no value ending, a value longer than 4 bytes) have count 0
// there, and stop the kernel before them.
func (g *gen) g8iu() {
	var masks [256][32]byte
	var counts [256]byte
	for d := range 256 {
		for i := range masks[d] {
			masks[d][i] = 0x80
		}
		start, j, bad := 0, 0, false
		for b := range 8 {
			if d>>b&1 != 0 {
				continue
			}
			if b+1-start > 4 {
				bad = true
			}
			for i := start; i <= b && i-start < 4; i++ {
				masks[d][4*j+i-start] = byte(i)
			}
			j++
			start = b + 1
		}
		if !bad {
			counts[d] = byte(j)
		}
	}
	shuffle := g.StaticGlobal("g8iuShuffle")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for d := range 256 {
		for q := range 4 {
			var w uint64
			for i := range 8 {
				w |= uint64(masks[d][8*q+i]) << (8 * i)
			}
			g.AddDatum(32*d+8*q, operand.U64(w))
		}
	}
	count := g.StaticGlobal("g8iuCount")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for q := range 32 {
		var w uint64
		for i := range 8 {
			w |= uint64(counts[8*q+i]) << (8 * i)
		}
		g.AddDatum(8*q, operand.U64(w))
	}

	g.Function("g8iuSSE")
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *uint32, src []byte, n int) (decoded int, used int)")
	g.Doc("g8iuSSE decodes varint-G8IU groups from src into dst with SSSE3 while",
		"8 values are left to decode and a whole group is left in src, and returns",
		"the values decoded and the bytes they took. It stops before a group the",
		"Go decoder rejects, for it to report.")
	dst := g.Load(g.Param("dst"), g.GP64())
	base := g.Load(g.Param("src").Base(), g.GP64())
	n := g.Load(g.Param("src").Len(), g.GP64())
	left := g.Load(g.Param("n"), g.GP64())
	p, end := g.GP64(), g.GP64()
	g.MOVQ(base, p)
	g.LEAQ(operand.Mem{Base: base, Index: n, Scale: 1, Disp: -9}, end) // last start of a whole group
	shuf, cnt := g.GP64(), g.GP64()
	g.LEAQ(shuffle, shuf)
	g.LEAQ(count, cnt)
	g.SUBQ(operand.U8(8), left) // values left beyond the next 8

	g.Label("loop")
	g.TESTQ(left, left)
	g.JS(operand.LabelRef("done"))
	g.CMPQ(p, end)
	g.JA(operand.LabelRef("done"))
	d, k := g.GP64(), g.GP64()
	g.MOVBQZX(operand.Mem{Base: p}, d)
	g.MOVBQZX(operand.Mem{Base: cnt, Index: d, Scale: 1}, k)
	g.TESTQ(k, k)
	g.JZ(operand.LabelRef("done"))
	g.MOVQ(operand.Mem{Base: p, Disp: 1}, reg.X0)
	g.MOVO(reg.X0, reg.X1)
	g.SHLQ(operand.U8(5), d)
	g.MOVOU(operand.Mem{Base: shuf, Index: d, Scale: 1}, reg.X2)
	g.MOVOU(operand.Mem{Base: shuf, Index: d, Scale: 1, Disp: 16}, reg.X3)
	g.PSHUFB(reg.X2, reg.X0)
	g.PSHUFB(reg.X3, reg.X1)
	g.MOVOU(reg.X0, operand.Mem{Base: dst})
	g.MOVOU(reg.X1, operand.Mem{Base: dst, Disp: 16})
	g.ADDQ(operand.U8(9), p)
	g.LEAQ(operand.Mem{Base: dst, Index: k, Scale: 4}, dst)
	g.SUBQ(k, left)
	g.JMP(operand.LabelRef("loop"))

	g.Label("done")
	g.ADDQ(operand.U8(8), left)
	n0 := g.Load(g.Param("n"), g.GP64())
	g.SUBQ(left, n0)
	g.Store(n0, g.Return("decoded"))
	g.SUBQ(base, p)
	g.Store(p, g.Return("used"))
	g.RET()
}

// g8cu writes g8cuSSE. A varint-G8CU value may begin in one unit and end
// in the next, and its bytes then lie on both sides of the second unit's
// descriptor. The kernel loads the 16 bytes from 4 before the descriptor
// (the previous unit's last 4 data bytes, the descriptor, the unit's 8)
// and picks the masks by the descriptor and the number of bytes carried
// over, 0 to 3: a 1024-row table of two PSHUFB masks, whose first value
// joins the carried bytes with the unit's first ones. A second table gives
// the values that end in the unit (0 where the Go decoder rejects the
// unit) and a third, by descriptor alone, the bytes the unit carries into
// the next; 4 or more can only make the next unit corrupt, and stop the
// kernel.
func (g *gen) g8cu() {
	const rows = 4 * 256
	var masks [rows][32]byte
	var counts [rows]byte
	var carries [256]byte
	for cl := range 4 {
		for d := range 256 {
			r := 256*cl + d
			for i := range masks[r] {
				masks[r][i] = 0x80
			}
			start, j, ok := 0, 0, true
			for b := range 8 {
				if d>>b&1 != 0 {
					continue
				}
				out := 0
				if j == 0 {
					for c := range cl {
						masks[r][c] = byte(4 - cl + c)
					}
					out = cl
				}
				if out+b+1-start > 4 {
					ok = false
				}
				for i := start; i <= b && out+i-start < 4; i++ {
					masks[r][4*j+out+i-start] = byte(5 + i)
				}
				j++
				start = b + 1
			}
			if ok && j > 0 {
				counts[r] = byte(j)
			}
			carries[d] = byte(8 - start)
		}
	}
	shuffle := g.StaticGlobal("g8cuShuffle")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for r := range rows {
		for q := range 4 {
			var w uint64
			for i := range 8 {
				w |= uint64(masks[r][8*q+i]) << (8 * i)
			}
			g.AddDatum(32*r+8*q, operand.U64(w))
		}
	}
	bytesTable := func(name string, v []byte) operand.Mem {
		t := g.StaticGlobal(name)
		g.DataAttributes(attr.RODATA | attr.NOPTR)
		for q := range len(v) / 8 {
			var w uint64
			for i := range 8 {
				w |= uint64(v[8*q+i]) << (8 * i)
			}
			g.AddDatum(8*q, operand.U64(w))
		}
		return t
	}
	count, carry := bytesTable("g8cuCount", counts[:]), bytesTable("g8cuCarry", carries[:])

	g.Function("g8cuSSE")
	asmgen.NoEscape(g.Context)
	g.SignatureExpr("func(dst *uint32, src []byte, i int, n int, p int, cl int) (ni int, np int, ncl int)")
	g.Doc("g8cuSSE decodes varint-G8CU units from src[p:] into dst[i:n] with SSSE3,",
		"cl bytes of a value carried into the unit at p from the one before, while",
		"8 values are left to decode and 12 bytes are left in src from p on. It",
		"returns the state after the units it decoded: the values decoded so far,",
		"the next unit's offset and the bytes carried into it. It requires p >= 4",
		"and cl <= 3, and stops before a unit the Go decoder rejects.")
	dst := g.Load(g.Param("dst"), g.GP64())
	base := g.Load(g.Param("src").Base(), g.GP64())
	n := g.Load(g.Param("src").Len(), g.GP64())
	i := g.Load(g.Param("i"), g.GP64())
	last := g.Load(g.Param("n"), g.GP64())
	p := g.Load(g.Param("p"), g.GP64())
	cl := g.Load(g.Param("cl"), g.GP64())
	end := g.GP64()
	g.LEAQ(operand.Mem{Base: n, Disp: -12}, end) // last unit offset with 12 bytes
	g.SUBQ(operand.U8(8), last)                  // last i with 8 values left
	shuf, cnt, car := g.GP64(), g.GP64(), g.GP64()
	g.LEAQ(shuffle, shuf)
	g.LEAQ(count, cnt)
	g.LEAQ(carry, car)

	g.Label("loop")
	g.CMPQ(i, last)
	g.JG(operand.LabelRef("done"))
	g.CMPQ(p, end)
	g.JG(operand.LabelRef("done"))
	row, d, k := g.GP64(), g.GP64(), g.GP64()
	g.MOVBQZX(operand.Mem{Base: base, Index: p, Scale: 1}, d)
	g.MOVQ(cl, row)
	g.SHLQ(operand.U8(8), row)
	g.ORQ(d, row) // 256*cl + descriptor
	g.MOVBQZX(operand.Mem{Base: cnt, Index: row, Scale: 1}, k)
	g.TESTQ(k, k)
	g.JZ(operand.LabelRef("done"))
	g.MOVOU(operand.Mem{Base: base, Index: p, Scale: 1, Disp: -4}, reg.X0)
	g.MOVO(reg.X0, reg.X1)
	// The bytes carried out depend on the descriptor alone, so the
	// units' carries form no chain of loads.
	g.MOVBQZX(operand.Mem{Base: car, Index: d, Scale: 1}, cl)
	g.SHLQ(operand.U8(5), row)
	// Legacy SSE memory operands must be aligned: load the masks first.
	g.MOVOU(operand.Mem{Base: shuf, Index: row, Scale: 1}, reg.X2)
	g.MOVOU(operand.Mem{Base: shuf, Index: row, Scale: 1, Disp: 16}, reg.X3)
	g.PSHUFB(reg.X2, reg.X0)
	g.PSHUFB(reg.X3, reg.X1)
	g.MOVOU(reg.X0, operand.Mem{Base: dst, Index: i, Scale: 4})
	g.MOVOU(reg.X1, operand.Mem{Base: dst, Index: i, Scale: 4, Disp: 16})
	g.ADDQ(k, i)
	g.ADDQ(operand.U8(9), p)
	g.CMPQ(cl, operand.U8(3))
	g.JA(operand.LabelRef("done"))
	g.JMP(operand.LabelRef("loop"))

	g.Label("done")
	g.Store(i, g.Return("ni"))
	g.Store(p, g.Return("np"))
	g.Store(cl, g.Return("ncl"))
	g.RET()
}
