//go:build libstreamvbyte && cgo

package libsvb

/*
#cgo LDFLAGS: -lstreamvbyte
#include <stdint.h>
#include <streamvbyte.h>

// decode_blocks decodes ops blocks of n values in turn, cycling through the
// nblocks blocks that start at data+off[i], into one reused buffer.
static void decode_blocks(const uint8_t *data, const int64_t *off, int64_t nblocks,
                          uint32_t n, uint32_t *dst, int64_t ops) {
	int64_t i = 0;
	for (int64_t k = 0; k < ops; k++) {
		streamvbyte_decode(data + off[i], dst, n);
		if (++i == nblocks) i = 0;
	}
}
*/
import "C"

import "unsafe"

// DecodeBlocks decodes ops blocks of n values with libstreamvbyte, cycling
// through the blocks data[off[i]:off[i+1]], each into dst[:n]. The C code
// trusts its input: the blocks must be well formed.
func DecodeBlocks(dst []uint32, data []byte, off []int64, n int, ops int) {
	C.decode_blocks((*C.uint8_t)(unsafe.Pointer(&data[0])), (*C.int64_t)(unsafe.Pointer(&off[0])),
		C.int64_t(len(off)-1), C.uint32_t(n), (*C.uint32_t)(unsafe.Pointer(&dst[0])), C.int64_t(ops))
}
