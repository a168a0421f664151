//go:build amd64 && !purego

#include "textflag.h"

// func windowsAVX2(a, b *uint32, na, nb, i, j int) (ri, rj, lane int)
//
// Y0 holds a[i:i+8], Y1 b[j:j+8]. Within each 128-bit half, Y1 and its
// three rotations (VPSHUFD) line every docid of a's half up with every
// docid of b's same half; Y4, Y1 with its halves swapped, and its
// rotations do the same across halves: eight equality compares cover all
// 64 pairs, and the OR of their results has lane k set exactly when
// a[i+k] is in b[j:j+8].
TEXT ·windowsAVX2(SB), NOSPLIT, $0-72
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ na+16(FP), CX
	MOVQ nb+24(FP), DX
	MOVQ i+32(FP), SI
	MOVQ j+40(FP), DI
	SUBQ $8, CX
	SUBQ $8, DX
	MOVQ $8, R14

loop:
	CMPQ SI, CX
	JGT  none
	CMPQ DI, DX
	JGT  none
	VMOVDQU    (AX)(SI*4), Y0
	VMOVDQU    (BX)(DI*4), Y1
	VPCMPEQD   Y1, Y0, Y2
	VPSHUFD    $0x39, Y1, Y3
	VPCMPEQD   Y3, Y0, Y3
	VPOR       Y3, Y2, Y2
	VPSHUFD    $0x4E, Y1, Y3
	VPCMPEQD   Y3, Y0, Y3
	VPOR       Y3, Y2, Y2
	VPSHUFD    $0x93, Y1, Y3
	VPCMPEQD   Y3, Y0, Y3
	VPOR       Y3, Y2, Y2
	VPERM2I128 $0x01, Y1, Y1, Y4
	VPCMPEQD   Y4, Y0, Y3
	VPOR       Y3, Y2, Y2
	VPSHUFD    $0x39, Y4, Y3
	VPCMPEQD   Y3, Y0, Y3
	VPOR       Y3, Y2, Y2
	VPSHUFD    $0x4E, Y4, Y3
	VPCMPEQD   Y3, Y0, Y3
	VPOR       Y3, Y2, Y2
	VPSHUFD    $0x93, Y4, Y3
	VPCMPEQD   Y3, Y0, Y3
	VPOR       Y3, Y2, Y2
	VMOVMSKPS  Y2, R8
	TESTL      R8, R8
	JNZ        found

	// No docid in both: the window ending lower moves on (the last
	// docids differ, or they would have matched), without a branch.
	MOVL    28(AX)(SI*4), R9
	MOVL    28(BX)(DI*4), R10
	XORQ    R11, R11
	XORQ    R12, R12
	CMPL    R9, R10
	CMOVQCS R14, R11
	CMOVQCC R14, R12
	ADDQ    R11, SI
	ADDQ    R12, DI
	JMP     loop

found:
	BSFL R8, R8
	MOVQ SI, ri+48(FP)
	MOVQ DI, rj+56(FP)
	MOVQ R8, lane+64(FP)
	VZEROUPPER
	RET

none:
	MOVQ SI, ri+48(FP)
	MOVQ DI, rj+56(FP)
	MOVQ $-1, lane+64(FP)
	VZEROUPPER
	RET
