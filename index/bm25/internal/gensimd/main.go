// Command gensimd writes package bm25's assembly with avo: scoreAVX2
// scores eight postings at a time, each TermScore's float32 operations as
// VMULPS, VADDPS and VDIVPS in the same order (IEEE single precision,
// rounded to nearest, as the scalar SSE code Go emits), the documents'
// norms fetched by one VGATHERDPS. A first pass checks, with VPMAXUD, that
// every docid indexes the norms and every stored frequency converts
// exactly, so that the gather reads nothing out of bounds and the signed
// conversion VCVTDQ2PS agrees with Go's unsigned one.
//
// Usage (run by go generate in index/bm25):
//
//	go run ./internal/gensimd -out score_amd64.s -stubs score_amd64_stubs.go
package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/gpusearch/gpusearch/internal/asmgen"
)

func main() {
	c := build.NewContext()
	score(c)
	asmgen.Main(c, "index/bm25/internal/gensimd", "bm25", "amd64 && !purego", nil)
}

// maxFreq is the largest stored frequency (term frequency less one) the
// kernel takes: its term frequency, 2^31-1, is the largest that VCVTDQ2PS,
// which reads signed integers, converts as Go converts a uint32.
const maxFreq = 1<<31 - 2

// score writes scoreAVX2.
func score(c *build.Context) {
	c.Function("scoreAVX2")
	asmgen.NoEscape(c)
	c.SignatureExpr("func(dst *float32, docs *uint32, freqs *uint32, n int, norms *float32, limit uint32, idf float32, k1p1 float32) (ok bool)")
	c.Doc("scoreAVX2 writes dst[i] = idf*((tf*k1p1)/(tf+norms[docs[i]])), tf the",
		"term frequency freqs[i]+1, for i < n, n a positive multiple of 8,",
		"each operation rounded to float32 in TermScore's order. It reports",
		"false, having written nothing, where a docid is not below limit",
		"(at most len(norms) and 2^31) or a stored frequency is above 2^31-2.")
	dst := c.Load(c.Param("dst"), c.GP64())
	docs := c.Load(c.Param("docs"), c.GP64())
	freqs := c.Load(c.Param("freqs"), c.GP64())
	n := c.Load(c.Param("n"), c.GP64())
	norms := c.Load(c.Param("norms"), c.GP64())
	limit := c.Load(c.Param("limit"), c.GP32())

	// The check: the largest docid and stored frequency, eight lanes at
	// a time, then across the lanes.
	maxDoc, maxF := c.YMM(), c.YMM()
	c.VPXOR(maxDoc, maxDoc, maxDoc)
	c.VPXOR(maxF, maxF, maxF)
	i := c.GP64()
	c.XORQ(i, i)
	c.Label("check")
	c.VPMAXUD(operand.Mem{Base: docs, Index: i, Scale: 4}, maxDoc, maxDoc)
	c.VPMAXUD(operand.Mem{Base: freqs, Index: i, Scale: 4}, maxF, maxF)
	c.ADDQ(operand.U8(8), i)
	c.CMPQ(i, n)
	c.JL(operand.LabelRef("check"))
	d := horizontalMax(c, maxDoc)
	c.CMPL(d, limit)
	c.JAE(operand.LabelRef("bad"))
	f := horizontalMax(c, maxF)
	c.CMPL(f, operand.U32(maxFreq))
	c.JA(operand.LabelRef("bad"))

	idf, k1p1, one := c.YMM(), c.YMM(), c.YMM()
	c.VBROADCASTSS(param(c, "idf"), idf)
	c.VBROADCASTSS(param(c, "k1p1"), k1p1)
	c.VPCMPEQD(one, one, one)
	c.VPSRLD(operand.U8(31), one, one)
	c.XORQ(i, i)
	c.Label("loop")
	idx, mask, norm, tf, num, den := c.YMM(), c.YMM(), c.YMM(), c.YMM(), c.YMM(), c.YMM()
	c.VMOVDQU(operand.Mem{Base: docs, Index: i, Scale: 4}, idx)
	c.VPCMPEQD(mask, mask, mask)
	c.VXORPS(norm, norm, norm)
	c.VGATHERDPS(mask, operand.Mem{Base: norms, Index: idx, Scale: 4}, norm)
	c.VMOVDQU(operand.Mem{Base: freqs, Index: i, Scale: 4}, tf)
	c.VPADDD(one, tf, tf)
	c.VCVTDQ2PS(tf, tf)
	c.VMULPS(k1p1, tf, num)
	c.VADDPS(norm, tf, den)
	c.VDIVPS(den, num, num)
	c.VMULPS(num, idf, num)
	c.VMOVUPS(num, operand.Mem{Base: dst, Index: i, Scale: 4})
	c.ADDQ(operand.U8(8), i)
	c.CMPQ(i, n)
	c.JL(operand.LabelRef("loop"))
	c.VZEROUPPER()
	ok := asmgen.Ret(c)
	c.MOVB(operand.U8(1), ok)
	c.RET()
	c.Label("bad")
	c.VZEROUPPER()
	c.MOVB(operand.U8(0), ok)
	c.RET()
}

// horizontalMax returns in a 32-bit register the largest unsigned lane of y.
func horizontalMax(c *build.Context, y reg.VecVirtual) reg.GPVirtual {
	x, t := c.XMM(), c.XMM()
	c.VEXTRACTI128(operand.U8(1), y, x)
	c.VPMAXUD(y.AsX(), x, x)
	c.VPSHUFD(operand.U8(0x4e), x, t)
	c.VPMAXUD(t, x, x)
	c.VPSHUFD(operand.U8(0xb1), x, t)
	c.VPMAXUD(t, x, x)
	r := c.GP32()
	c.VMOVD(x, r)
	return r
}

// param is the stack slot of the function's parameter name.
func param(c *build.Context, name string) operand.Mem {
	p, err := c.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return p.Addr
}
