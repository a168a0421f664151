// blockdec.cuh: one warp's decoder of one block of each GPU block format
// (codecplugins/gpuformat), shared by decode.cu's decode kernels and the
// fused AND steps of query.cu, which decode the blocks they intersect
// with. decode.cu's opening comment describes the work split and the
// safety rules; mkptx.sh and TestPTXFresh hash this header with each .cu
// of the directory, so a change here asks for fresh PTX of both.
#ifndef GPUSEARCH_BLOCKDEC_CUH
#define GPUSEARCH_BLOCKDEC_CUH

typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned char u8;

#define FULL_MASK 0xffffffffu

// Staging capacity per warp in 16-byte chunks: the largest block of the
// format plus one chunk for the start's misalignment and one for reads of
// the word after the last.
#define BP128_CAP16 ((4 + 128 * 4) / 16 + 3)
#define BP256_CAP16 ((8 + 256 * 4) / 16 + 3)
#define VB128_CAP16 ((32 + 128 * 4) / 16 + 3)
#define VB1024_CAP16 ((256 + 1024 * 4) / 16 + 3)
#define PFOR_CAP16 (1024 / 16 + 3)
#define RICE_CAP16 ((4 + 128 * 4 + 1024 * 4) / 16 + 3)

#define PFOR_NODES 7

__device__ __forceinline__ u32 warp_incl_scan(u32 x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    u32 y = __shfl_up_sync(FULL_MASK, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

__device__ __forceinline__ u32 low_mask(u32 w) { return w >= 32 ? 0xffffffffu : (1u << w) - 1u; }

// Shared-memory word i of a staged block, clamped into the staged area.
__device__ __forceinline__ u32 sword(const u32* s, u32 i, u32 capw) { return s[i < capw ? i : capw - 1]; }

// Bits [bit, bit+w) of the little-endian word stream at s (w <= 32).
__device__ __forceinline__ u32 sbits(const u32* s, u32 capw, u32 bit, u32 w) {
  u32 i = bit >> 5;
  u32 lo = sword(s, i, capw), hi = sword(s, i + 1, capw);
  return __funnelshift_r(lo, hi, bit & 31) & low_mask(w);
}

// stage copies the 16-byte chunks covering data[start, start+len) and the
// chunk after them into sh (at most cap16 chunks) and returns start's byte
// offset in sh.
__device__ __forceinline__ u32 stage(uint4* sh, u32 cap16, const u8* data, u64 start, u64 len, int lane) {
  u64 a0 = start & ~15ull;
  u64 n16 = ((start + len - a0 + 15) >> 4) + 1;
  if (n16 > cap16) n16 = cap16;
  const uint4* g = reinterpret_cast<const uint4*>(data + a0);
  for (u32 i = lane; i < n16; i += 32) sh[i] = __ldg(g + i);
  __syncwarp();
  return (u32)(start - a0);
}

// emit finishes a round: for docids it turns the lane's four gaps into
// docids (carry is the docid before the round, updated to the round's
// last), then writes the values of the round that exist (first is the
// lane's first value index in the block, n the block's count).
template <bool DOCIDS>
__device__ __forceinline__ void emit(u32 v[4], u32& carry, u32* dst, u32 first, u32 n, int lane) {
  if (DOCIDS) {
    v[1] += v[0];
    v[2] += v[1];
    v[3] += v[2];
    u32 incl = warp_incl_scan(v[3], lane);
    u32 add = carry + incl - v[3];
#pragma unroll
    for (int t = 0; t < 4; t++) v[t] += add;
    carry += __shfl_sync(FULL_MASK, incl, 31);
  }
  if (first + 3 < n) {
    *reinterpret_cast<uint4*>(dst + first) = make_uint4(v[0], v[1], v[2], v[3]);
  } else {
#pragma unroll
    for (int t = 0; t < 4; t++)
      if (first + t < n) dst[first + t] = v[t];
  }
}

// ---- GPU-BP ---------------------------------------------------------------

template <int B, bool DOCIDS>
__device__ __forceinline__ void bp_block(const u32* s, u32 capw, u32 n, u32 carry, u32* dst, int lane) {
  const int G = B / 32;          // miniblocks, width bytes
  const int HW = G / 4;          // header words
  // Widths and word offsets of the lane's miniblock in each round: lane l
  // of round r decodes miniblock 4r + l/8.
  u32 mw[B / 128], moff[B / 128];
  u32 off = HW;
#pragma unroll
  for (int k = 0; k < G; k++) {
    u32 w = (sword(s, k / 4, capw) >> (8 * (k % 4))) & 0xff;
    w = w > 32 ? 32 : w;
    int c = (int)n - 32 * k;
    c = c < 0 ? 0 : (c > 32 ? 32 : c);
    if (k % 4 == lane / 8) {
      mw[k / 4] = w;
      moff[k / 4] = off;
    }
    off += ((u32)c * w + 31) / 32;
  }
#pragma unroll
  for (int r = 0; r < B / 128; r++) {
    if (128u * r >= n) break;
    u32 first = 128 * r + 4 * lane;
    u32 w = mw[r];
    u32 bit0 = (4 * (lane % 8)) * w;
    u32 v[4];
#pragma unroll
    for (int t = 0; t < 4; t++) {
      u32 x = sbits(s + moff[r], capw - moff[r], bit0 + t * w, w);
      v[t] = first + t < n ? x : 0;
    }
    emit<DOCIDS>(v, carry, dst, first, n, lane);
  }
}

// ---- GPU-VByte ------------------------------------------------------------

// Byte j of the staged stream at s.
__device__ __forceinline__ u32 sbyte(const u32* s, u32 capw, u32 j) { return (sword(s, j >> 2, capw) >> (8 * (j & 3))) & 0xff; }

template <int B, bool DOCIDS>
__device__ __forceinline__ void vbyte_block(const u32* s, u32 shift, u32 capw, u32 n, u32 carry, u32* dst, int lane) {
  u32 ns = (n + 3) / 4;   // selector bytes
  u32 pos = shift + ns;   // staged byte offset of the round's data
  for (int r = 0; r < B / 128; r++) {
    if (128u * r >= n) break;
    u32 first = 128 * r + 4 * lane;
    u32 sel = 32u * r + lane < ns ? sbyte(s, capw, shift + 32 * r + lane) : 0;
    u32 len[4], sum = 0;
#pragma unroll
    for (int t = 0; t < 4; t++) {
      len[t] = first + t < n ? ((sel >> (2 * t)) & 3) + 1 : 0;
      sum += len[t];
    }
    u32 incl = warp_incl_scan(sum, lane);
    u32 p = pos + incl - sum;
    u32 v[4];
#pragma unroll
    for (int t = 0; t < 4; t++) {
      u32 lo = sword(s, p >> 2, capw), hi = sword(s, (p >> 2) + 1, capw);
      u32 x = __funnelshift_r(lo, hi, 8 * (p & 3));
      v[t] = len[t] == 0 ? 0 : x & (0xffffffffu >> (32 - 8 * len[t]));
      p += len[t];
    }
    pos += __shfl_sync(FULL_MASK, incl, 31);
    emit<DOCIDS>(v, carry, dst, first, n, lane);
  }
}

// ---- GPU-PForDelta --------------------------------------------------------

// unpack_seq decodes c values of b bits from the word stream that starts
// at word off of s into out. Indices stay absolute so that the clamp in
// sword bounds them, whatever off a corrupt header gives.
__device__ __forceinline__ void unpack_seq(const u32* s, u32 capw, u32 off, u32 c, u32 b, u32* out, int lane) {
  for (u32 i = lane; i < c; i += 32) out[i] = sbits(s, capw, 32 * off + i * b, b);
}

// patch adds the e exceptions given by position gaps g and overflows h
// (minus one) into the c values of width b at x.
__device__ __forceinline__ void patch(u32* x, u32 c, u32 b, const u32* g, const u32* h, u32 e, int lane) {
  u32 carry = 0;  // one past the last position so far
  for (u32 k0 = 0; k0 < e; k0 += 32) {
    u32 k = k0 + lane;
    u32 step = k < e ? g[k] + 1 : 0;
    u32 incl = warp_incl_scan(step, lane);
    u32 p = carry + incl - 1;
    if (k < e && p < c && b < 32) x[p] |= (h[k] + 1) << b;
    carry += __shfl_sync(FULL_MASK, incl, 31);
  }
  __syncwarp();
}

// Header i: slot width and exception count.
__device__ __forceinline__ void pfor_header(const u32* s, u32 capw, u32 i, u32& b, u32& e) {
  u32 h = (sword(s, i / 2, capw) >> (16 * (i % 2))) & 0xffff;
  b = h & 63;
  b = b > 32 ? 32 : b;
  e = h >> 6;
}

template <bool DOCIDS>
__device__ __forceinline__ void pfor_block(const u32* s, u32 capw, u32 n, u32 carry, u32* dst, u32* vals, int lane) {
  // The sequence tree in preorder: 0 root, 1 P, [PP, PH], H, [HP, HH].
  // vals holds 128 values per sequence: row 0 root, 1 P, 2 PP, 3 PH, 4 H,
  // 5 HP, 6 HH.
  u32 b0, e0, b1 = 0, e1 = 0, b2 = 0, b3 = 0, b4 = 0, e4 = 0, b5 = 0, b6 = 0, cnt = 1, tmp;
  pfor_header(s, capw, 0, b0, e0);
  e0 = e0 > n ? n : e0;
  if (e0 > 0) {
    pfor_header(s, capw, 1, b1, e1);
    e1 = e1 > e0 ? e0 : e1;
    cnt = 2;
    if (e1 > 0) {
      pfor_header(s, capw, 2, b2, tmp);
      pfor_header(s, capw, 3, b3, tmp);
      cnt = 4;
    }
    pfor_header(s, capw, cnt, b4, e4);
    e4 = e4 > e0 ? e0 : e4;
    cnt++;
    if (e4 > 0) {
      pfor_header(s, capw, cnt, b5, tmp);
      pfor_header(s, capw, cnt + 1, b6, tmp);
      cnt += 2;
    }
  }
  // Slots, in preorder after the padded headers.
  u32 off = (2 * cnt + 3) / 4;
  unpack_seq(s, capw, off, n, b0, vals, lane);
  off += (n * b0 + 31) / 32;
  if (e0 > 0) {
    unpack_seq(s, capw, off, e0, b1, vals + 128, lane);
    off += (e0 * b1 + 31) / 32;
    if (e1 > 0) {
      unpack_seq(s, capw, off, e1, b2, vals + 2 * 128, lane);
      off += (e1 * b2 + 31) / 32;
      unpack_seq(s, capw, off, e1, b3, vals + 3 * 128, lane);
      off += (e1 * b3 + 31) / 32;
    }
    unpack_seq(s, capw, off, e0, b4, vals + 4 * 128, lane);
    off += (e0 * b4 + 31) / 32;
    if (e4 > 0) {
      unpack_seq(s, capw, off, e4, b5, vals + 5 * 128, lane);
      off += (e4 * b5 + 31) / 32;
      unpack_seq(s, capw, off, e4, b6, vals + 6 * 128, lane);
    }
  }
  __syncwarp();
  if (e0 > 0) {
    if (e1 > 0) patch(vals + 128, e0, b1, vals + 2 * 128, vals + 3 * 128, e1, lane);
    if (e4 > 0) patch(vals + 4 * 128, e0, b4, vals + 5 * 128, vals + 6 * 128, e4, lane);
    patch(vals, n, b0, vals + 128, vals + 4 * 128, e0, lane);
  }
  u32 first = 4 * lane;
  uint4 q = reinterpret_cast<const uint4*>(vals)[lane];
  u32 v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
  for (int t = 0; t < 4; t++) v[t] = first + t < n ? v[t] : 0;
  emit<DOCIDS>(v, carry, dst, first, n, lane);
}

// ---- GPU-Rice -------------------------------------------------------------

template <bool DOCIDS>
__device__ __forceinline__ void rice_block(const u32* s, u32 capw, u32 n, u32 base, u32* dst, u32* zpos, int lane) {
  u32 h = sword(s, 0, capw);
  u32 b = h & 63;
  b = b > 32 ? 32 : b;
  u32 U = h >> 16;
  u32 bin = (n * b + 31) / 32;
  const u32* un = s + 1 + bin;
  u32 unw = capw > 1 + bin ? capw - 1 - bin : 1;
  // zpos[i] = bit position of the i-th zero of the unary stream: each lane
  // takes a word, and a warp scan of the words' zero counts gives each lane
  // the index of its word's first zero.
  u32 found = 0;
  for (u32 w0 = 0; w0 < U && found < n; w0 += 32) {
    u32 wi = w0 + lane;
    u32 z = wi < U ? ~sword(un, wi, unw) : 0;
    u32 c = __popc(z);
    u32 incl = warp_incl_scan(c, lane);
    u32 idx = found + incl - c;
    while (z != 0 && idx < n) {
      zpos[idx++] = 32 * wi + __ffs(z) - 1;
      z &= z - 1;
    }
    found += __shfl_sync(FULL_MASK, incl, 31);
  }
  __syncwarp();
  u32 first = 4 * lane;
  u32 r[4], z[4], v[4];
#pragma unroll
  for (int t = 0; t < 4; t++) {
    bool ok = first + t < n;
    r[t] = ok ? sbits(s + 1, capw - 1, (first + t) * b, b) : 0;
    z[t] = ok ? zpos[first + t] : 0;
  }
  if (DOCIDS) {
    // Docid i = base + (z_i - i) << b + the sum of the remainders up to i:
    // z_i - i is the sum of the quotients up to i.
    r[1] += r[0];
    r[2] += r[1];
    r[3] += r[2];
    u32 incl = warp_incl_scan(r[3], lane);
    u32 add = base + incl - r[3];
#pragma unroll
    for (int t = 0; t < 4; t++) v[t] = add + r[t] + (u32)((u64)(z[t] - (first + t)) << b);
  } else {
    u32 prev = first == 0 ? 0xffffffffu : zpos[first - 1];
#pragma unroll
    for (int t = 0; t < 4; t++) {
      v[t] = (u32)((u64)(z[t] - prev - 1) << b) | r[t];
      prev = z[t];
    }
  }
  u32 unused = 0;
  emit<false>(v, unused, dst, first, n, lane);
}
enum { F_BP128, F_BP256, F_VB128, F_VB1024, F_PFOR, F_RICE };

// Per format: values per block, staging chunks, extra shared words per warp
// (decoded sequences for PFor, zero positions for Rice), and whether blocks
// are whole words (and so start 4-byte aligned).
template <int F> struct Fmt;
template <> struct Fmt<F_BP128> { enum { B = 128, CAP16 = BP128_CAP16, EXTRA16 = 1, WORDS = 1 }; };
template <> struct Fmt<F_BP256> { enum { B = 256, CAP16 = BP256_CAP16, EXTRA16 = 1, WORDS = 1 }; };
template <> struct Fmt<F_VB128> { enum { B = 128, CAP16 = VB128_CAP16, EXTRA16 = 1, WORDS = 0 }; };
template <> struct Fmt<F_VB1024> { enum { B = 1024, CAP16 = VB1024_CAP16, EXTRA16 = 1, WORDS = 0 }; };
template <> struct Fmt<F_PFOR> { enum { B = 128, CAP16 = PFOR_CAP16, EXTRA16 = PFOR_NODES * 128 / 4, WORDS = 1 }; };
template <> struct Fmt<F_RICE> { enum { B = 128, CAP16 = RICE_CAP16, EXTRA16 = 128 / 4, WORDS = 1 }; };

// decode_block decodes block b of a column (format F; docids when DOCIDS,
// else the raw values) into dst with one warp (lane: the thread's lane),
// staging its bytes in stg (Fmt<F>::CAP16 chunks) and using extra
// (Fmt<F>::EXTRA16 chunks) as PFor's and Rice's scratch. A block whose id,
// offsets or count are out of range is skipped. Every lane of the warp
// calls it.
template <int F, bool DOCIDS>
__device__ __forceinline__ void decode_block(uint4* stg, uint4* extra, const u8* data, u64 dataLen, const u64* offs,
                                             const u32* counts, const u32* bases, u64 b, u64 totalBlocks, u32* dst,
                                             u64 stride, int lane) {
  typedef Fmt<F> T;
  if (b >= totalBlocks) return;
  // The block's metadata: four independent loads, one round trip.
  u64 start = __ldg(offs + b), end = __ldg(offs + b + 1);
  u32 n = __ldg(counts + b);
  u32 base = DOCIDS ? __ldg(bases + b) : 0;
  if (end < start || end > dataLen || n > (u32)T::B || n > stride) return;
  if (T::WORDS && (start & 3) != 0) return;
  u32 shift = stage(stg, T::CAP16, data, start, end - start, lane);
  const u32* s = reinterpret_cast<const u32*>(stg);
  u32 capw = 4 * T::CAP16;
  u32* x = reinterpret_cast<u32*>(extra);
  if constexpr (F == F_VB128 || F == F_VB1024) {
    vbyte_block<T::B, DOCIDS>(s, shift, capw, n, base, dst, lane);
    return;
  }
  s += shift / 4;
  capw -= shift / 4;
  if constexpr (F == F_BP128 || F == F_BP256) bp_block<T::B, DOCIDS>(s, capw, n, base, dst, lane);
  if constexpr (F == F_PFOR) pfor_block<DOCIDS>(s, capw, n, base, dst, x, lane);
  if constexpr (F == F_RICE) rice_block<DOCIDS>(s, capw, n, base, dst, x, lane);
}

#endif  // GPUSEARCH_BLOCKDEC_CUH
