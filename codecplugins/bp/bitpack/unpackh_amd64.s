//go:build amd64 && !purego

#include "textflag.h"

// Horizontal unpackers of a 128-value block of width b, 1 <= b <= 25
// (written by hand: one short loop, not a kernel per width). Value i
// starts at bit i*b of src, so eight values take b bytes, and the four
// values from i = 8k+4 on start b/2 bytes (rounded down) after those from
// 8k, at bit 4b mod 8 of that byte. Per four values, one 16-byte load,
// a PSHUFB that gives each 32-bit lane the four bytes its value starts
// in, a per-lane right shift of 0..7 bits (b <= 25 keeps the value
// inside those four bytes) and a mask. The shuffles, shifts and mask of
// width b come from t (hTable in unpackh_amd64.go). src must have 16
// readable bytes past the block: the last load reads up to there.

// func unpackHSSE(dst *[128]uint32, src *byte, b int, t *hTable)
// SSE has no per-lane shift: a PMULLD by 2^(7-shift) moves each value to
// bit 7 (it then ends at bit 31 at most), and a PSRLD by 7 brings it down.
TEXT ·unpackHSSE(SB), NOSPLIT, $0-32
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  b+16(FP), BX
	MOVQ  t+24(FP), AX
	MOVQ  BX, DX
	SHRQ  $1, DX
	MOVOU 0(AX), X4
	MOVOU 16(AX), X5
	MOVOU 32(AX), X6
	MOVOU 48(AX), X7
	MOVOU 64(AX), X8
	MOVQ  $16, CX

loopSSE:
	MOVOU  (SI), X0
	MOVOU  (SI)(DX*1), X1
	PSHUFB X4, X0
	PSHUFB X5, X1
	PMULLD X6, X0
	PMULLD X7, X1
	PSRLL  $7, X0
	PSRLL  $7, X1
	PAND   X8, X0
	PAND   X8, X1
	MOVOU  X0, (DI)
	MOVOU  X1, 16(DI)
	ADDQ   BX, SI
	ADDQ   $32, DI
	DECQ   CX
	JNZ    loopSSE
	RET

// func unpackHAVX2(dst *[128]uint32, src *byte, b int, t *hTable)
// Eight values a step: values 8k..8k+3 in the lower 128-bit half, 8k+4..
// 8k+7 in the upper (VPSHUFB shuffles within halves), shifted by VPSRLVD.
TEXT ·unpackHAVX2(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    b+16(FP), BX
	MOVQ    t+24(FP), AX
	MOVQ    BX, DX
	SHRQ    $1, DX
	VMOVDQU 0(AX), Y4
	VMOVDQU 64(AX), Y8
	VMOVDQU 96(AX), Y9
	MOVQ    $16, CX

loopAVX2:
	VMOVDQU     (SI), X0
	VINSERTI128 $1, (SI)(DX*1), Y0, Y0
	VPSHUFB     Y4, Y0, Y0
	VPSRLVD     Y9, Y0, Y0
	VPAND       Y8, Y0, Y0
	VMOVDQU     Y0, (DI)
	ADDQ        BX, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         loopAVX2
	VZEROUPPER
	RET
