//go:build amd64 && !purego

#include "textflag.h"

// func T0(p unsafe.Pointer)
TEXT ·T0(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func Indexed4(base unsafe.Pointer, idx []uint32)
TEXT ·Indexed4(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), AX
	MOVQ idx_base+8(FP), SI
	MOVQ idx_len+16(FP), CX
	TESTQ CX, CX
	JZ done
loop:
	MOVL (SI), DX
	PREFETCHT0 (AX)(DX*4)
	ADDQ $4, SI
	DECQ CX
	JNZ loop
done:
	RET
