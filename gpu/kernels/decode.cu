// decode.cu: GPU decoders for the block formats of codecplugins/gpuformat
// (gpu-bp128, gpu-bp256, gpu-vbyte128, gpu-vbyte1024, gpu-pfordelta,
// gpu-rice). codecplugins/gpuformat/doc.go documents every layout; the Go
// CPU decoders there are the reference these kernels are tested against.
// One warp's decoder of one block (decode_block) is in blockdec.cuh, which
// query.cu's fused AND steps share.
//
// Work split. A CTA has WARPS warps and each warp decodes one block: it
// stages the block's bytes into its slice of shared memory with 16-byte
// loads (from the aligned chunks that cover the block, so a block may start
// anywhere), then decodes 128 values per round, lane l taking values
// 4l..4l+3 of the round, and writes them with one 16-byte store per lane,
// so a warp's stores cover 512 contiguous bytes. Docid output fuses the
// block-local prefix sum: a scan inside the lane's four values, a warp
// scan of the lanes' totals (shuffles, no shared memory, no atomics), a
// carry between rounds, and the block's base, the previous block's last
// docid, from the skip table.
//
// Blocks to decode: blocks first..first+nblocks-1 of the column, or, when
// sel is not null, blocks sel[0..nblocks-1]. The k-th decoded block goes to
// out[k*stride ..], stride being the index's block size, so a list's blocks
// land contiguously. counts[b] is block b's number of values; offs[b] and
// offs[b+1] bound its bytes in data; bases[b] is the docid the block's
// d-gaps start from (0 for a list's first block).
//
// Safety. Every global and shared access is bounded, whatever the bytes say:
// a block whose offsets, count or id are out of range is skipped (its
// output left as it was), and a corrupt block decodes to garbage, never to
// an out-of-bounds access. The host allocates data with at least 32 bytes
// of slack past the last 16-byte boundary, so staging may read one chunk
// past a block.
//
// Kernel parameters are all 8 bytes wide (pointers and unsigned long long):
// gorgonia.org/cu copies 8 bytes per argument.

#include "blockdec.cuh"

#define WARPS 4

// MIN_CTAS is the CTAs per multiprocessor that __launch_bounds__ asks the
// compiler to fit, which caps registers at 65536 / (MIN_CTAS * WARPS * 32)
// per thread: 12 gives 42 registers and 48 of 64 warps resident.
#ifndef MIN_CTAS
#define MIN_CTAS 12
#endif

// ---- Entry points ---------------------------------------------------------

// decode_body decodes the blocks of CTA cta's warps.
template <int F, bool DOCIDS>
__device__ __forceinline__ void decode_body(const u8* data, u64 dataLen, const u64* offs, const u32* counts,
                                            const u32* bases, const u32* sel, u64 first, u64 nblocks,
                                            u64 totalBlocks, u32* out, u64 stride, u64 cta) {
  typedef Fmt<F> T;
  __shared__ uint4 stg[WARPS][T::CAP16];
  __shared__ uint4 extra[WARPS][T::EXTRA16];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  u64 k = cta * WARPS + warp;
  if (k >= nblocks) return;
  u64 b = sel != 0 ? (u64)__ldg(sel + k) : first + k;
  decode_block<F, DOCIDS>(stg[warp], extra[warp], data, dataLen, offs, counts, bases, b, totalBlocks, out + k * stride,
                          stride, lane);
}

#define DECODE_PARAMS                                                                                         \
  const u8 *data, u64 dataLen, const u64 *offs, const u32 *counts, const u32 *bases, const u32 *sel, u64 first, \
      u64 nblocks, u64 totalBlocks, u32 *out, u64 stride
#define DECODE_ARGS data, dataLen, offs, counts, bases, sel, first, nblocks, totalBlocks, out, stride, blockIdx.x

// decodepair_<name> decodes the same blocks of a docid column (d*) and a
// frequency column (f*) in the same format in one launch: the first half
// of its 2 * ceil(nblocks / WARPS) CTAs the docids into dOut, the second
// the frequencies' gaps into fOut.
#define PAIR_PARAMS                                                                                             \
  const u8 *dData, u64 dDataLen, const u64 *dOffs, const u32 *dCounts, const u32 *dBases, u64 dTotal,           \
      const u8 *fData, u64 fDataLen, const u64 *fOffs, const u32 *fCounts, u64 fTotal, const u32 *sel, u64 first, \
      u64 nblocks, u32 *dOut, u32 *fOut, u64 stride

#define DEFINE_DECODE(name, F)                                                                            \
  extern "C" __global__ void __launch_bounds__(WARPS * 32, MIN_CTAS) decode_##name##_gaps(DECODE_PARAMS) {         \
    decode_body<F, false>(DECODE_ARGS);                                                                   \
  }                                                                                                       \
  extern "C" __global__ void __launch_bounds__(WARPS * 32, MIN_CTAS) decode_##name##_docids(DECODE_PARAMS) {       \
    decode_body<F, true>(DECODE_ARGS);                                                                    \
  }                                                                                                       \
  extern "C" __global__ void __launch_bounds__(WARPS * 32, MIN_CTAS) decodepair_##name(PAIR_PARAMS) {           \
    u64 half = gridDim.x / 2;                                                                             \
    if (blockIdx.x < half)                                                                                \
      decode_body<F, true>(dData, dDataLen, dOffs, dCounts, dBases, sel, first, nblocks, dTotal, dOut, stride, \
                           blockIdx.x);                                                                   \
    else                                                                                                  \
      decode_body<F, false>(fData, fDataLen, fOffs, fCounts, 0, sel, first, nblocks, fTotal, fOut, stride,     \
                            blockIdx.x - half);                                                           \
  }

DEFINE_DECODE(bp128, F_BP128)
DEFINE_DECODE(bp256, F_BP256)
DEFINE_DECODE(vbyte128, F_VB128)
DEFINE_DECODE(vbyte1024, F_VB1024)
DEFINE_DECODE(pfordelta, F_PFOR)
DEFINE_DECODE(rice, F_RICE)

// copy_u4 copies n16 16-byte chunks with a grid-stride loop: the kernel
// copy that measures the bandwidth a decode kernel could reach.
extern "C" __global__ void __launch_bounds__(256) copy_u4(const uint4* src, uint4* dst, u64 n16) {
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += (u64)gridDim.x * blockDim.x)
    dst[i] = __ldg(src + i);
}
