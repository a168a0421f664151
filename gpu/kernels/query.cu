// query.cu: the kernels of the GPU query engine (gpu/qengine.go drives
// them; the decoders are in decode.cu). Conjunctive queries follow Ding,
// He, Yan and Suel (WWW 2009), sections 7 and 8; disjunctive queries use
// dense accumulators; the top-k is a radix select.
//
// AND runs in waves: one launch sequence for a batch of AND passes, one
// launch per kernel and step, whatever the number of queries (one, for a
// query alone). The wave's table (AndWave) lays the queries' arrays end to
// end; the element-wise kernels walk the wave's tiles (grid-stride), each
// tile serving one query, and the scans run one CTA per query. The
// shortest list of every query is decoded first (q_init lists its
// blocks), its docids becoming the candidates; then one step per list
// after the shortest (lists shortest first), for the queries that have it:
//   and_select        Parallel Merge Find of every candidate in the list's
//                     skip column (last docid per block), two levels: each
//                     warp's first and last candidates are splitters whose
//                     blocks bound the search of every lane. A candidate
//                     lands in the first block whose last docid is >= it;
//                     past the list's end it drops out. The first
//                     candidate of each landing block flags that block.
//   and_scan          exclusive sum of the query's per-tile flag counts.
//                     A query alone gets it from and_select's last CTA
//                     instead (see last_cta), one launch fewer; and_select
//                     also clears the selection that and_scatter_blocks
//                     then fills.
//   and_scatter_blocks  the flagged blocks, in order, become the selection
//                     that the decoders take; every candidate learns the
//                     row its block decodes to.
//   (decode_*         docids and frequencies of the selected blocks)
//   and_intersect     each candidate searches its row: the block bounds are
//                     the splitters of the second level, so the search
//                     covers one block.
//   and_scan, and_scatter_survivors  stable compaction of the matches,
//                     carrying each survivor's frequencies (as freq-1) in
//                     every list so far (alone, and_intersect's last CTA
//                     scans).
// Candidates stay sorted, so a tile's flags and ranks need no sort.
// and_score then sums each survivor's term scores in query-term order into
// its key, and the wave's top-k runs as for OR waves (below). A query alone
// runs fewer launches: its last and_scatter_survivors scores as it
// compacts, and the last CTA of the kernel before each of topk_pick and
// topk_finish does their work (see last_cta); with few keys that CTA
// runs the whole top-k (cta_topk), and with few candidates each step is
// the decode and one single-CTA kernel (see "A query alone of few
// candidates").
//
// OR: the accumulators (one float per document) are zeroed, then one
// or_score pass per query term in query order adds each posting's score to
// its document: a document appears once in a list, so no atomics.
//
// Waves: a batch of OR queries shares one launch sequence. Their lists'
// blocks are decoded together by one launch (decodepair_* in decode.cu,
// or one per column if their formats differ), rows query by
// query and position by position (q_init lists them from a table of each
// list's first block and rows), then
// or_span_wave scores them with no accumulators in device memory: a CTA
// owns one query's OR_SPAN documents, adds their postings position by
// position in shared memory (positions in query order, so scores add up as
// alone) and appends to the query's keys those of its documents that can
// be in the top-k (scoring at least a cut at or below the span's needs-th
// best score; see or_span_wave). The top-k kernels then run gx CTAs per
// query (histogram, compaction) or one CTA per query (pick, finish) on each
// query's keys, slot, histogram and boundary; a wave of one with few keys
// runs its top-k in or_span_wave's last CTA instead (cta_topk). A wave runs only round 0 of
// the select; a query whose boundary exceeds FIN_CAP keys runs again alone.
//
// Top-k: a radix select over 64-bit keys (score bits made unsigned-
// ordered, then the complement of the docid), so that a larger key ranks
// higher and ties on score go to the lower docid: keys are distinct and
// the k largest are exactly the top-k. Round 0 histograms key bits 52..63
// of every candidate (topk_hist_*), topk_pick finds the bin B holding the
// k-th key, topk_compact_* moves keys above B to the result and keys in B
// to a boundary array, and topk_finish sorts a boundary of up to FIN_CAP
// keys in shared memory and takes what is still needed. A larger boundary
// goes through further rounds of 13 bits each (bits 39..51, 26..38,
// 13..25, 0..12) that the host launches; after the last the boundary is
// one key. Every top-k kernel returns at once when the state says done.
//
// Arithmetic: term_score is bm25.TermScore with each float operation
// rounded on its own (__fmul_rn, __fadd_rn, __fdiv_rn, in the Go order),
// and scores add up from 0 in query-term order, so scores are bitwise the
// CPU engines'.
//
// Counts live in device memory (the state words): kernels take a pointer to
// the count of their input and loop over it (tiles or grid strides), with
// grids sized by a host-side bound and capped. A query runs without a host
// round trip until its results are read.
//
// Safety: every index comes from the engine's own arrays, and writes into
// the result and boundary arrays are bounded by their capacities.
//
// Kernel parameters are 8 bytes each (pointers and unsigned long long):
// gorgonia.org/cu copies 8 bytes per argument. Floats travel as their bits.

typedef unsigned int u32;
typedef unsigned long long u64;

#include "blockdec.cuh"

#define NONE 0xffffffffu
#define FULL 0xffffffffu
// Threads of the element-wise kernels, and elements per tile.
#define TILE 256
// Threads of the single-CTA kernels (tile_scan, topk_pick, topk_finish).
#define BIG 1024
// Widest radix digit, in bits.
#define HIST_BITS 13
// Largest boundary topk_finish sorts in shared memory.
#define FIN_CAP 4096
// Most blocks of a list whose skip column select_rows copies to shared
// memory (as many words as FIN_CAP keys take).
#define SKIP_CAP 8192

// Top-k state words.
#define S_NEED 0    // keys still to select from the current round's input
#define S_SURE 1    // bins >= S_SURE go to the result
#define S_BND 2     // the boundary bin (NONE: none)
#define S_FINAL 3   // the round's compaction completes the result
#define S_DONE 4    // the result holds the top-k
#define S_RESULT 5  // keys in the result
#define S_BC0 6     // boundary sizes: round r writes S_BC0 + (r & 1)
// Words from S_STEPS on are the conjunctive steps' counters.
#define S_STEPS 8
// A wave's OR pass counts the keys its spans emit in its first step word.
#define S_KEYS 8
// Documents per CTA of or_span_wave (their accumulators: 32 KB of shared
// memory), and the postings each of its threads loads at a time.
#define OR_SPAN 8192
#define OR_UNROLL 4

static __device__ __forceinline__ u32 umin(u32 a, u32 b) { return a < b ? a : b; }

// tiles_of is the number of TILE-element tiles that n elements fill. The
// tile kernels loop over the tiles of their input's count, whatever their
// grid, so the host sizes grids by a bound and later steps, with fewer
// candidates, finish early.
static __device__ __forceinline__ u32 tiles_of(u32 n) { return (n + TILE - 1) / TILE; }

static __device__ __forceinline__ u32 warp_scan_incl(u32 x) {
  int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    u32 y = __shfl_up_sync(FULL, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

// block_scan returns the exclusive prefix sum of x over the CTA's threads
// and sets *total to the sum of all. Every thread of the CTA calls it.
static __device__ u32 block_scan(u32 x, u32* total) {
  __shared__ u32 sums[32];
  __shared__ u32 all;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  u32 incl = warp_scan_incl(x);
  if (lane == 31) sums[w] = incl;
  __syncthreads();
  if (w == 0) {
    u32 v = lane < nw ? sums[lane] : 0;
    u32 vi = warp_scan_incl(v);
    if (lane < nw) sums[lane] = vi - v;
    if (lane == 31) all = vi;
  }
  __syncthreads();
  u32 r = sums[w] + incl - x;
  *total = all;
  __syncthreads();  // the next call reuses sums and all
  return r;
}

// slot_of is query q's slot in a wave: slots lie stride bytes apart.
template <class T>
static __device__ __forceinline__ T* slot_of(T* base, u64 q, u64 stride) {
  return reinterpret_cast<T*>(reinterpret_cast<u64>(base) + q * stride);
}

// lower_bound is the first index in [lo, hi) whose value is >= x, or hi.
static __device__ __forceinline__ u32 lower_bound(const u32* a, u32 lo, u32 hi, u32 x) {
  while (lo < hi) {
    u32 mid = lo + ((hi - lo) >> 1);
    if (a[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// warp_lower_bound is lower_bound(a, lo, hi, x) found by the warp
// together: each step probes 32 evenly spaced places and keeps those
// between the last probe below x and the first at or after it, so n places
// take about log32(n) dependent loads instead of log2(n). Every lane of
// the warp calls it with the same arguments.
static __device__ u32 warp_lower_bound(const u32* a, u32 lo, u32 hi, u32 x) {
  u32 lane = threadIdx.x & 31, b = hi;
  // The answer lies in [lo, b]; b is hi or a place whose value is >= x.
  while (lo < b) {
    u32 step = (b - lo + 31) / 32, r = lo + lane * step;
    u32 m = __ballot_sync(FULL, r >= b || a[r] >= x);
    if (m == 0) {
      lo += 31 * step + 1;
      continue;
    }
    u32 f = __ffs(m) - 1;
    if (f == 0) return lo;
    u32 end = lo + f * step;
    lo += (f - 1) * step + 1;
    b = end < b ? end : b;
  }
  return lo;
}

// term_score is bm25.Params.TermScore: idf * ((tf * (k1+1)) / (tf + norm)).
static __device__ __forceinline__ float term_score(float idf, u32 tf, float norm, float k1p1) {
  float f = __uint2float_rn(tf);
  float num = __fmul_rn(f, k1p1);
  float den = __fadd_rn(f, norm);
  return __fmul_rn(idf, __fdiv_rn(num, den));
}

// make_key orders by score, then by lower docid.
static __device__ __forceinline__ u64 make_key(float score, u32 doc) {
  u32 b = __float_as_uint(score);
  b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return ((u64)b << 32) | (u64)(NONE - doc);
}

// score_bits is a score's bits made unsigned-ordered: the high word of its
// key.
static __device__ __forceinline__ u32 score_bits(float score) { return (u32)(make_key(score, 0) >> 32); }

// span_cut returns a cut on score_bits such that the span's nonzero
// accumulators at or above it include its need best (all of them when
// fewer are nonzero), and sets *total to how many they are. Thread t holds
// acc[first .. first+per) (per a power of two, read in a rotated order so
// that a warp's reads hit 32 banks). It is a radix select over the top 16
// bits (sign, exponent, 7 mantissa bits), 8 a round with a shared
// histogram: the cut may let in a few more keys than need, never fewer.
// Every thread calls it.
static __device__ u32 span_cut(const float* acc, u32 first, u32 per, u32 need, u32* total) {
  __shared__ u32 h[256];
  __shared__ u32 pick, left, above, tot;
  u32 prefix = 0, mask = 0;
  if (threadIdx.x == 0) {
    left = need;
    above = 0;
  }
  for (int shift = 24; shift >= 16; shift -= 8) {
    for (u32 j = threadIdx.x; j < 256; j += blockDim.x) h[j] = 0;
    __syncthreads();
    for (u32 i = 0; i < per; i++) {
      float f = acc[first + ((i + threadIdx.x) & (per - 1))];
      u32 u = score_bits(f);
      if (f != 0.0f && (u & mask) == prefix) atomicAdd(&h[(u >> shift) & 255], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      // Lane l sums bins [248 - 8l, 256 - 8l); an inclusive scan from the
      // top finds the lane, then the bin, where the count reaches left.
      u32 l = threadIdx.x, sum = 0;
      for (u32 j = 0; j < 8; j++) sum += h[255 - 8 * l - j];
      u32 incl = warp_scan_incl(sum), need_now = left;
      u32 m = __ballot_sync(FULL, incl >= need_now);
      u32 all = __shfl_sync(FULL, incl, 31);
      if (l == 0) {
        pick = NONE;
        tot = all;  // fewer than need: every nonzero accumulator
      }
      __syncwarp();
      if (m != 0 && l == (u32)(__ffs(m) - 1)) {
        u32 c = incl - sum;
        for (u32 j = 0; j < 8; j++) {
          u32 bin = 255 - 8 * l - j;
          if (c + h[bin] >= need_now) {
            pick = bin;
            left = need_now - c;
            above += c;
            tot = above + h[bin];
            break;
          }
          c += h[bin];
        }
      }
    }
    __syncthreads();
    if (pick == NONE) break;
    prefix |= pick << shift;
    mask |= 255u << shift;
    __syncthreads();  // every thread has read pick before the next round
  }
  *total = tot;
  return prefix;
}

// ---- Conjunctive steps ----------------------------------------------------

// A wave of AND passes is described by a table of u32 words (and_wave
// reads it): per query q of W, its need (k, at most its candidates), n1
// (the postings of its shortest list), cand (where its elements start in
// the element arrays), m (its lists); then, W+1 words each, the prefix
// sums rows0 (its shortest list's blocks: the rows its candidates decode
// to), tile (TILE-element tiles of n1), sel (rows of its selection at each
// step) and pos (its query positions); then first and nb, list-major (list
// l of query q at l*W + q; lists shortest first); then the positions'
// lists and idf bits. A query's element arrays (candidates, blocks, rows,
// slots, keys) hold rows0 blocks' worth from cand on; the frequency
// arrays hold list l of every query at l * C + cand, C being the wave's
// elements (rows0[W] * bs).
struct AndWave {
  const u32 *need, *n1, *cand, *m, *rows0, *tile, *sel, *pos, *first, *nb, *plist, *pidf;
  u32 w;
};

static __device__ __forceinline__ AndWave and_wave(const u32* t, u64 W, u64 M) {
  AndWave a;
  a.w = (u32)W;
  a.need = t;
  a.n1 = t + W;
  a.cand = t + 2 * W;
  a.m = t + 3 * W;
  a.rows0 = t + 4 * W;
  a.tile = a.rows0 + W + 1;
  a.sel = a.tile + W + 1;
  a.pos = a.sel + W + 1;
  a.first = a.pos + W + 1;
  a.nb = a.first + M * W;
  a.plist = a.nb + M * W;
  a.pidf = a.plist + a.pos[W];
  return a;
}

// tile_query is the query that the wave's tile g belongs to: the last q
// with tile[q] <= g.
static __device__ __forceinline__ u32 tile_query(const AndWave& a, u32 g) {
  u32 lo = 0, hi = a.w;
  while (hi - lo > 1) {
    u32 mid = (lo + hi) >> 1;
    if (a.tile[mid] <= g)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// A step's tile: tile t of query q, whose li-th step takes n candidates
// (the count after list li-1).
struct StepTile {
  u32 q, t, n;
};

// step_tile maps the wave's tile g to its query's tile at step li, and
// reports false when that query has no step li or the tile lies past its
// count. The answer is uniform over a CTA, so the caller may skip the tile
// around its barriers.
static __device__ __forceinline__ bool step_tile(const AndWave& a, u32 g, u64 li, const u32* state, u64 stride,
                                                 StepTile* s) {
  s->q = tile_query(a, g);
  if (li >= a.m[s->q]) return false;
  s->n = slot_of(state, s->q, stride)[S_STEPS + li - 1];
  s->t = g - a.tile[s->q];
  return s->t < tiles_of(s->n);
}

// starts_block reports whether candidate i, which lands in block b, is the
// first candidate of that block: it is the first candidate, or its
// predecessor lies at or before the end of block b-1 (candidates are
// sorted, so the predecessor of a candidate in the list's first block is
// in that block too).
static __device__ __forceinline__ bool starts_block(const u32* cand, u64 i, const u32* lastDoc, u64 first, u32 b) {
  return b != NONE && (i == 0 || (b != first && cand[i - 1] <= lastDoc[b - 1]));
}

// scan_tiles writes the exclusive prefix sums of tiles tile counts to
// tileOffsets and returns their total. Every thread of the CTA calls it.
// P is const u32* or, for counts other CTAs of the same kernel wrote,
// const volatile u32*.
template <class P>
static __device__ u32 scan_tiles(u32 tiles, P tileCounts, u32* tileOffsets) {
  u32 per = (tiles + blockDim.x - 1) / blockDim.x;
  u32 lo = umin(tiles, threadIdx.x * per), hi = umin(tiles, lo + per);
  u32 sum = 0;
  for (u32 t = lo; t < hi; t++) sum += tileCounts[t];
  u32 total;
  u32 off = block_scan(sum, &total);
  for (u32 t = lo; t < hi; t++) {
    tileOffsets[t] = off;
    off += tileCounts[t];
  }
  return total;
}

// scan_step is and_scan's work for query q; every thread of the CTA calls
// it.
template <class P>
static __device__ void scan_step(const AndWave& a, u32 q, u64 li, u32* state, u64 stride, P tileCounts,
                                 u32* tileOffsets, u64 out, u64 carry) {
  u32 t0 = a.tile[q];
  u32* st = slot_of(state, q, stride);
  if (li >= a.m[q]) {
    if (carry && threadIdx.x == 0) st[S_STEPS + li] = st[S_STEPS + li - 1];
    return;
  }
  u32 total = scan_tiles<P>(tiles_of(st[S_STEPS + li - 1]), tileCounts + t0, tileOffsets + t0);
  if (threadIdx.x == 0) st[out] = total;
  __syncthreads();  // a next query's step may read this word
}

// last_cta reports, to every thread of the CTA, whether the CTA is the
// last of its grid to get here: the others' writes before the call are
// then visible to it. The last one clears *ticket for the next kernel (q_init
// zeroes it first). Every thread of every CTA calls it.
static __device__ bool last_cta(u32* ticket) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last && threadIdx.x == 0) *ticket = 0;
  return last;
}

// pick_body and finish_body are topk_pick's and topk_finish's work for one
// query (see Top-k below), which the last CTA of an earlier kernel may do.
static __device__ void pick_body(const volatile u32* hist, u64 bits, u64 round, u32* state);
static __device__ void finish_body(u64 round, const volatile u64* bnd, volatile u32* state, u64* result,
                                   u64 resultCap, u64* sk);
// cta_topk ends round 0 of the top-k of n keys after its pick, and the
// finish, in one CTA; cta_hist is its histogram of a large boundary bin
// (see "A query alone: the top-k in one CTA" below).
static __device__ void cta_hist(const volatile u64* keys, u32 n, u64 shift, u64 bits, u32* h, u64 fshift, u64 fbits,
                                u32 fbin);
static __device__ void cta_topk(const volatile u64* keys, u32 n, u64 shift, u64 bits, const volatile u32* hist,
                                u32* state, u64* result, u64 resultCap, u64* bnd, u64 bndCap, u64* sk);

// scan_tail is and_scan for every query of the wave, run by the last CTA
// of a step kernel when ticket is not null.
static __device__ void scan_tail(const AndWave& a, u64 li, u32* state, u64 stride, const u32* tileCounts,
                                 u32* tileOffsets, u64 out, u64 carry, u32* ticket) {
  if (ticket == 0 || !last_cta(ticket)) return;
  __threadfence();
  for (u32 q = 0; q < a.w; q++)
    scan_step<const volatile u32*>(a, q, li, state, stride, tileCounts, tileOffsets, out, carry);
}

// and_select finds, at step li, each candidate's block in the query's list
// li: blk[i] is a block of [first, first+nb) or NONE, and tileCounts[g]
// counts the blocks first landed on in the wave's tile g. Grid-stride over
// the wave's tiles. It sets the selRows entries of sel to NONE (the
// decoders skip those and_scatter_blocks leaves so) and, with a ticket,
// scans as and_scan does into state word S_STEPS+M+li.
extern "C" __global__ void __launch_bounds__(TILE)
    and_select(const u32* tab, u64 W, u64 M, u64 li, const u32* cand, u32* state, u64 stride, const u32* lastDoc,
               u32* blk, u32* tileCounts, u32* sel, u64 selRows, u32* tileOffsets, u32* ticket) {
  AndWave a = and_wave(tab, W, M);
  StepTile st;
  for (u64 r = (u64)blockIdx.x * TILE + threadIdx.x; r < selRows; r += (u64)gridDim.x * TILE) sel[r] = NONE;
  for (u32 g = blockIdx.x; g < a.tile[W]; g += gridDim.x) {
    if (!step_tile(a, g, li, state, stride, &st)) continue;
    const u32* c0 = cand + a.cand[st.q];
    u32 lo = a.first[li * W + st.q], end = lo + a.nb[li * W + st.q];
    u64 i = (u64)st.t * TILE + threadIdx.x;
    bool active = i < st.n;
    u32 c = active ? c0[i] : NONE;
    // Splitters: the warp's first and last candidates (active lanes are a
    // prefix of the warp), searched over the whole list by the warp.
    u32 act = __ballot_sync(FULL, active);
    int lastLane = act != 0 ? 31 - __clz(act) : 0;
    u32 cLo = __shfl_sync(FULL, c, 0), cHi = __shfl_sync(FULL, c, lastLane);
    u32 bLo = warp_lower_bound(lastDoc, lo, end, cLo);
    u32 bHi = warp_lower_bound(lastDoc, bLo, end, cHi);
    u32 b = lower_bound(lastDoc, bLo, bHi < end ? bHi + 1 : end, c);
    if (!active || b >= end) b = NONE;
    if (active) blk[a.cand[st.q] + i] = b;
    u32 cnt = __syncthreads_count(starts_block(c0, i, lastDoc, lo, b));
    if (threadIdx.x == 0) tileCounts[g] = cnt;
  }
  scan_tail(a, li, state, stride, tileCounts, tileOffsets, S_STEPS + M + li, 0, ticket);
}

// tile_scan writes the exclusive prefix sums of the tile counts of the
// *countp elements' tiles, and their total to *totalp. One CTA.
extern "C" __global__ void __launch_bounds__(BIG)
    tile_scan(const u32* countp, const u32* tileCounts, u32* tileOffsets, u32* totalp) {
  u32 total = scan_tiles<const u32*>(tiles_of(*countp), tileCounts, tileOffsets);
  if (threadIdx.x == 0) *totalp = total;
}

// and_scan is tile_scan for each query of a wave at step li, CTA q for
// query q: it scans the query's tiles of its step's count and writes the
// total to the query's state word out. A query with no step li, when carry
// is set, carries its count forward (word S_STEPS+li-1 to S_STEPS+li), so
// that every query's final count is at S_STEPS+M-1.
extern "C" __global__ void __launch_bounds__(BIG)
    and_scan(const u32* tab, u64 W, u64 M, u64 li, u32* state, u64 stride, const u32* tileCounts, u32* tileOffsets,
             u64 out, u64 carry) {
  scan_step<const u32*>(and_wave(tab, W, M), blockIdx.x, li, state, stride, tileCounts, tileOffsets, out, carry);
}

// and_scatter_blocks writes the landed blocks of each query, in order, to
// its rows of sel (from sel[q] on) that the decoders take, and for every
// candidate the row of its block to row (NONE if it dropped out).
extern "C" __global__ void __launch_bounds__(TILE)
    and_scatter_blocks(const u32* tab, u64 W, u64 M, u64 li, const u32* cand, const u32* state, u64 stride,
                       const u32* lastDoc, const u32* blk, const u32* tileOffsets, u32* sel, u32* row) {
  AndWave a = and_wave(tab, W, M);
  StepTile st;
  for (u32 g = blockIdx.x; g < a.tile[W]; g += gridDim.x) {
    if (!step_tile(a, g, li, state, stride, &st)) continue;
    u32 base = a.cand[st.q];
    u64 i = (u64)st.t * TILE + threadIdx.x;
    bool active = i < st.n;
    u32 b = active ? blk[base + i] : NONE;
    bool start = starts_block(cand + base, i, lastDoc, a.first[li * W + st.q], b);
    u32 total;
    u32 r = a.sel[st.q] + tileOffsets[g] + block_scan(start ? 1 : 0, &total);
    if (start) sel[r] = b;
    if (active) row[base + i] = b == NONE ? NONE : (start ? r : r - 1);
  }
}

// and_intersect looks each candidate up in the decoded row of its block
// (docs: rows of stride values; counts: values per block): slot[i] is its
// position in the block, or NONE. With a ticket it scans as and_scan does
// (into state word S_STEPS+li, carrying).
extern "C" __global__ void __launch_bounds__(TILE)
    and_intersect(const u32* tab, u64 W, u64 M, u64 li, const u32* cand, u32* state, u64 stride, const u32* blk,
                  const u32* row, const u32* docs, const u32* counts, u64 bs, u32* slot, u32* tileCounts,
                  u32* tileOffsets, u32* ticket) {
  AndWave a = and_wave(tab, W, M);
  StepTile st;
  for (u32 g = blockIdx.x; g < a.tile[W]; g += gridDim.x) {
    if (!step_tile(a, g, li, state, stride, &st)) continue;
    u64 i = (u64)st.t * TILE + threadIdx.x, e = a.cand[st.q] + i;
    u32 s = NONE;
    if (i < st.n) {
      u32 r = row[e];
      if (r != NONE) {
        u32 c = cand[e];
        u32 len = umin(counts[blk[e]], (u32)bs);
        const u32* d = docs + (u64)r * bs;
        u32 p = lower_bound(d, 0, len, c);
        if (p < len && d[p] == c) s = p;
      }
      slot[e] = s;
    }
    u32 cnt = __syncthreads_count(s != NONE);
    if (threadIdx.x == 0) tileCounts[g] = cnt;
  }
  scan_tail(a, li, state, stride, tileCounts, tileOffsets, S_STEPS + li, 1, ticket);
}

// and_scatter_survivors compacts each query's matched candidates into
// candOut and their frequencies (freq-1) into fm1Out: the li earlier
// lists' from fm1In, list li's from its decoded rows (lists C elements
// apart).
//
// With keys (the last step of a query alone, W = 1), it also does
// and_score's work and its top-k round up to the pick (see and_score):
// each survivor's key to keys, the histogram of digit [shift, shift+bits)
// to hist (zeroed), topk_pick in the last CTA (ticket); with a result
// too, that CTA ends the top-k (cta_topk: the compaction into result and
// bnd, bndCap keys, and the finish).
extern "C" __global__ void __launch_bounds__(TILE)
    and_scatter_survivors(const u32* tab, u64 W, u64 M, u64 li, const u32* cand, u32* state, u64 stride,
                          const u32* slot, const u32* row, const u32* tileOffsets, const u32* freqs, u64 bs,
                          const u32* fm1In, u32* fm1Out, u64 C, u32* candOut, const float* norms, u64 k1p1,
                          u64* keys, u64 shift, u64 bits, u32* hist, u32* ticket, u64* result, u64 resultCap,
                          u64* bnd, u64 bndCap) {
  // The histogram's shared array, then cta_topk's sort buffer.
  __shared__ u64 sh[1 << (HIST_BITS - 1)];
  u32* h = reinterpret_cast<u32*>(sh);
  AndWave a = and_wave(tab, W, M);
  StepTile st;
  float k = __uint_as_float((u32)k1p1);
  u32 nbins = 1u << bits, mask = nbins - 1;
  if (keys != 0) {
    for (u32 j = threadIdx.x; j < nbins; j += blockDim.x) h[j] = 0;
    __syncthreads();
  }
  for (u32 g = blockIdx.x; g < a.tile[W]; g += gridDim.x) {
    if (!step_tile(a, g, li, state, stride, &st)) continue;
    u64 base = a.cand[st.q], i = (u64)st.t * TILE + threadIdx.x;
    u32 s = i < st.n ? slot[base + i] : NONE;
    bool keep = s != NONE;
    u32 total;
    u64 o = tileOffsets[g] + block_scan(keep ? 1 : 0, &total);
    if (keep) {
      u32 d = cand[base + i], f = freqs[(u64)row[base + i] * bs + s];
      candOut[base + o] = d;
      for (u64 l = 0; l < li; l++) fm1Out[l * C + base + o] = fm1In[l * C + base + i];
      fm1Out[li * C + base + o] = f;
      if (keys != 0) {
        float norm = norms[d], sc = 0.0f;
        for (u32 p = a.pos[st.q]; p < a.pos[st.q + 1]; p++) {
          u32 l = a.plist[p];
          u32 fm = l == li ? f : fm1In[(u64)l * C + base + i];
          sc = __fadd_rn(sc, term_score(__uint_as_float(a.pidf[p]), fm + 1, norm, k));
        }
        u64 key = make_key(sc, d);
        keys[base + o] = key;
        atomicAdd(&h[(key >> shift) & mask], 1u);
      }
    }
  }
  if (keys == 0) return;
  __syncthreads();
  for (u32 j = threadIdx.x; j < nbins; j += blockDim.x)
    if (h[j] != 0) atomicAdd(&hist[j], h[j]);
  if (!last_cta(ticket)) return;
  __threadfence();
  pick_body(hist, bits, 0, state);
  if (result != 0)
    cta_topk(keys + a.cand[0], ((const volatile u32*)state)[S_STEPS + li], shift, bits, hist, state, result,
             resultCap, bnd, bndCap, sh);
}

// and_score sums each survivor's term scores in query order into its
// top-k key. A query of m lists ends its steps in the candidate and
// frequency arrays of parity (m-1)&1 (cand0/fm10 hold the shortest list's
// decode and every even step's survivors).
//
// With a ticket (a query alone, W = 1), it also does round 0 of the top-k
// up to the pick: it histograms digit [shift, shift+bits) of the keys into
// hist (zeroed), as topk_hist_wave would, and its last CTA does topk_pick's
// work: two launches fewer. With a result too, that CTA ends the top-k as
// and_scatter_survivors' does.
extern "C" __global__ void __launch_bounds__(TILE)
    and_score(const u32* tab, u64 W, u64 M, const u32* cand0, const u32* cand1, const u32* fm10, const u32* fm11,
              u64 C, u32* state, u64 stride, const float* norms, u64 k1p1, u64* keys, u64 shift, u64 bits, u32* hist,
              u32* ticket, u64* result, u64 resultCap, u64* bnd, u64 bndCap) {
  __shared__ u64 sh[1 << (HIST_BITS - 1)];
  u32* h = reinterpret_cast<u32*>(sh);
  AndWave a = and_wave(tab, W, M);
  float k = __uint_as_float((u32)k1p1);
  u32 nbins = 1u << bits, mask = nbins - 1;
  if (ticket != 0) {
    for (u32 j = threadIdx.x; j < nbins; j += blockDim.x) h[j] = 0;
    __syncthreads();
  }
  for (u32 g = blockIdx.x; g < a.tile[W]; g += gridDim.x) {
    u32 q = tile_query(a, g), m = a.m[q];
    u32 n = slot_of(state, q, stride)[S_STEPS + m - 1];
    u64 i = (u64)(g - a.tile[q]) * TILE + threadIdx.x;
    if (i >= n) continue;
    bool odd = (m - 1) & 1;
    u64 e = a.cand[q] + i;
    u32 d = (odd ? cand1 : cand0)[e];
    const u32* fm1 = odd ? fm11 : fm10;
    float norm = norms[d], s = 0.0f;
    for (u32 p = a.pos[q]; p < a.pos[q + 1]; p++)
      s = __fadd_rn(s, term_score(__uint_as_float(a.pidf[p]), fm1[a.plist[p] * C + e] + 1, norm, k));
    u64 key = make_key(s, d);
    keys[e] = key;
    if (ticket != 0) atomicAdd(&h[(key >> shift) & mask], 1u);
  }
  if (ticket == 0) return;
  __syncthreads();
  for (u32 j = threadIdx.x; j < nbins; j += blockDim.x)
    if (h[j] != 0) atomicAdd(&hist[j], h[j]);
  if (!last_cta(ticket)) return;
  __threadfence();
  pick_body(hist, bits, 0, state);
  if (result != 0)
    cta_topk(keys + a.cand[0], ((const volatile u32*)state)[S_STEPS + a.m[0] - 1], shift, bits, hist, state,
             result, resultCap, bnd, bndCap, sh);
}

// ---- A query alone of few candidates ---------------------------------------
//
// A pass alone (W = 1) whose shortest list has at most a few thousand
// postings (the host decides by its size class) runs each step as the
// decode and one kernel, with no scan and no tile counts:
//   and_select_rows   (the first step only) and_select and
//                     and_scatter_blocks at once: selection row i belongs
//                     to candidate i and holds its block when the candidate
//                     is the first to land there, else NONE (the decoders
//                     skip it); a candidate's row is its block's first
//                     candidate's, found in its warp by a ballot or, when
//                     that lies before the warp, by a warp search of the
//                     candidates before it. The selected blocks need no
//                     order, so no scan.
//   (decode_*         docids and frequencies of the selected rows)
//   and_step_cta      one CTA of BIG threads: intersects the candidates
//                     with their rows and compacts the matches BIG at a
//                     time, in order, at a running offset; then selects
//                     the next list's rows as and_select_rows does, or
//                     after the last list scores, histograms, picks and
//                     ends the top-k (cta_topk).
// A two-list query alone is then six graph nodes: the table's upload,
// q_init, the shortest list's decode, and_select_rows, the decode of the
// selected blocks and and_step_cta (two more per further list).

// select_rows is and_select_rows' work at step li over the chunks g0,
// g0+gstep, ... of blockDim.x candidates of cand; state is the query's
// slot. It clears the selection's rows from the step's count to selRows
// and adds the selected blocks to state word S_STEPS+M+li (zeroed by
// q_init). A list of at most skipCap blocks (SKIP_CAP at most: the host
// passes 0 to test the other way) has its skip column copied
// to skip (shared memory) first, in one round of independent loads, so
// each candidate's search runs there instead of through dependent global
// loads; a longer one is searched as and_select does. Every thread of
// the CTA calls it.
static __device__ void select_rows(const AndWave& a, u64 M, u64 li, const u32* cand, u32* state, const u32* lastDoc,
                                   u32* blk, u32* sel, u64 selRows, u32* row, u32 g0, u32 gstep, u32* skip,
                                   u64 skipCap) {
  u32 n = ((const volatile u32*)state)[S_STEPS + li - 1];
  u64 chunk = blockDim.x;
  for (u64 r = n + g0 * chunk + threadIdx.x; r < selRows; r += gstep * chunk) sel[r] = NONE;
  u32 lo = a.first[li], nb = a.nb[li], end = lo + nb;
  bool inShared = nb <= skipCap && nb <= SKIP_CAP;
  if (inShared) {
#pragma unroll 8
    for (u32 j = threadIdx.x; j < nb; j += blockDim.x) skip[j] = lastDoc[lo + j];
    __syncthreads();
  }
  // The last docid of block b of the list.
  auto last = [&](u32 b) { return inShared ? skip[b - lo] : lastDoc[b]; };
  // The loop bound is uniform over the CTA, so every thread reaches the
  // barriers and every lane the warp's votes.
  for (u64 base = g0 * chunk; base < n; base += gstep * chunk) {
    u64 i = base + threadIdx.x;
    bool active = i < n;
    u32 c = active ? cand[i] : NONE;
    u32 b;
    if (inShared) {
      b = lo + lower_bound(skip, 0, nb, c);
    } else {
      // Splitters as in and_select.
      u32 act = __ballot_sync(FULL, active);
      int lastLane = act != 0 ? 31 - __clz(act) : 0;
      u32 cLo = __shfl_sync(FULL, c, 0), cHi = __shfl_sync(FULL, c, lastLane);
      u32 bLo = warp_lower_bound(lastDoc, lo, end, cLo);
      u32 bHi = warp_lower_bound(lastDoc, bLo, end, cHi);
      b = lower_bound(lastDoc, bLo, bHi < end ? bHi + 1 : end, c);
    }
    if (!active || b >= end) b = NONE;
    // As starts_block.
    bool start = b != NONE && (i == 0 || (b != lo && cand[i - 1] <= last(b - 1)));
    u32 lane = threadIdx.x & 31, m = __ballot_sync(FULL, start), mine = m & (FULL >> (31 - lane));
    u32 w0 = (u32)i - lane, b0 = __shfl_sync(FULL, b, 0), r0 = 0;
    // The lanes before the warp's first start share lane 0's block. When
    // that block began before the warp, its first candidate is the first
    // past the previous block's last docid (candidate 0 for the list's
    // first block). The condition is uniform over the warp.
    if (!(m & 1) && b0 != NONE && b0 != lo) r0 = warp_lower_bound(cand, 0, w0, last(b0 - 1) + 1);
    if (active) {
      blk[i] = b;
      row[i] = b == NONE ? NONE : (mine != 0 ? w0 + 31 - __clz(mine) : r0);
      sel[i] = start ? b : NONE;
    }
    u32 cnt = __syncthreads_count(start);
    if (threadIdx.x == 0 && cnt != 0) atomicAdd(state + S_STEPS + M + li, cnt);
  }
}

// and_select_rows selects the rows of list li (see above and select_rows)
// for a query alone whose slot is state: blk and row per candidate, sel
// per row.
extern "C" __global__ void __launch_bounds__(TILE)
    and_select_rows(const u32* tab, u64 M, u64 li, const u32* cand, u32* state, const u32* lastDoc, u32* blk,
                    u32* sel, u64 selRows, u32* row, u64 skipCap) {
  __shared__ u32 skip[SKIP_CAP];
  select_rows(and_wave(tab, 1, M), M, li, cand, state, lastDoc, blk, sel, selRows, row, blockIdx.x, gridDim.x, skip,
              skipCap);
}

// step_body is step li of a query alone of few candidates in one CTA
// (see above): it intersects the candidates cand with their decoded rows
// (as and_intersect), compacts the matches into candOut and their freq-1
// into fm1Out (as and_scatter_survivors), and counts them at state word
// S_STEPS+li. Before the last list it then selects list li+1's rows into
// blk, row and sel; after it, it also scores each survivor into keys and
// histograms digit [shift, shift+bits) in shared memory, picks, and ends
// the top-k into result and bnd (cta_topk). skipCap: as select_rows'. sh
// is FIN_CAP keys of shared memory: the histogram, then cta_topk's sort
// buffer; before the last list, the next list's skip column (SKIP_CAP
// words). When at is not null, at[i] is already candidate i's place in
// its row or NONE (and_stepdec's row search) and docs is not read. at,
// docs and freqs are read past L1: other CTAs of a fused step kernel
// wrote them. Every thread of the CTA calls it.
static __device__ void step_body(const u32* tab, u64 M, u64 li, const u32* cand, u32* state, u32* blk, u32* row,
                                 u32* sel, u64 selRows, const u32* docs, const u32* at, const u32* freqs,
                                 const u32* counts, u64 bs, const u32* lastDoc, const u32* fm1In, u32* fm1Out, u64 C,
                                 u32* candOut, const float* norms, u64 k1p1, u64* keys, u64 shift, u64 bits,
                                 u64* result, u64 resultCap, u64* bnd, u64 bndCap, u64 skipCap, u64* sh) {
  u32* h = reinterpret_cast<u32*>(sh);
  AndWave a = and_wave(tab, 1, M);
  bool last = li + 1 == M;
  float k = __uint_as_float((u32)k1p1);
  u32 nbins = 1u << bits, mask = nbins - 1;
  if (last) {
    for (u32 j = threadIdx.x; j < nbins; j += blockDim.x) h[j] = 0;
    __syncthreads();
  }
  u32 n = state[S_STEPS + li - 1], running = 0;
  for (u64 base = 0; base < n; base += blockDim.x) {
    u64 i = base + threadIdx.x;
    u32 s = NONE, r = NONE;
    if (i < n) {
      r = row[i];
      if (r != NONE && at != 0) {
        s = __ldcg(at + i);
      } else if (r != NONE) {
        u32 c = cand[i];
        u32 len = umin(counts[blk[i]], (u32)bs);
        const u32* d = docs + (u64)r * bs;
        // lower_bound with loads past L1.
        u32 lo = 0, hi = len;
        while (lo < hi) {
          u32 mid = (lo + hi) >> 1;
          if (__ldcg(d + mid) < c)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo < len && __ldcg(d + lo) == c) s = lo;
      }
    }
    bool keep = s != NONE;
    u32 total;
    u64 o = running + block_scan(keep ? 1 : 0, &total);
    if (keep) {
      u32 dd = cand[i], f = __ldcg(freqs + (u64)r * bs + s);
      candOut[o] = dd;
      for (u64 l = 0; l < li; l++) fm1Out[l * C + o] = fm1In[l * C + i];
      fm1Out[li * C + o] = f;
      if (last) {
        float norm = norms[dd], sc = 0.0f;
        for (u32 p = a.pos[0]; p < a.pos[1]; p++) {
          u32 l = a.plist[p];
          u32 fm = l == li ? f : fm1In[(u64)l * C + i];
          sc = __fadd_rn(sc, term_score(__uint_as_float(a.pidf[p]), fm + 1, norm, k));
        }
        u64 key = make_key(sc, dd);
        keys[o] = key;
        atomicAdd(&h[(key >> shift) & mask], 1u);
      }
    }
    running += total;
  }
  if (threadIdx.x == 0) state[S_STEPS + li] = running;
  __syncthreads();  // the count, candOut, and every read of blk and row are done
  if (!last) {
    select_rows(a, M, li + 1, candOut, state, lastDoc, blk, sel, selRows, row, 0, 1, reinterpret_cast<u32*>(sh),
                skipCap);
    return;
  }
  pick_body(h, bits, 0, state);
  cta_topk(keys, running, shift, bits, h, state, result, resultCap, bnd, bndCap, sh);
}

// and_step_cta is step_body in a kernel of one CTA, after the decode of
// the step's rows into docs and freqs.
extern "C" __global__ void __launch_bounds__(BIG)
    and_step_cta(const u32* tab, u64 M, u64 li, const u32* cand, u32* state, u32* blk, u32* row, u32* sel,
                 u64 selRows, const u32* docs, const u32* freqs, const u32* counts, u64 bs, const u32* lastDoc,
                 const u32* fm1In, u32* fm1Out, u64 C, u32* candOut, const float* norms, u64 k1p1, u64* keys,
                 u64 shift, u64 bits, u64* result, u64 resultCap, u64* bnd, u64 bndCap, u64 skipCap) {
  __shared__ u64 sh[FIN_CAP];
  step_body(tab, M, li, cand, state, blk, row, sel, selRows, docs, 0, freqs, counts, bs, lastDoc, fm1In, fm1Out, C,
            candOut, norms, k1p1, keys, shift, bits, result, resultCap, bnd, bndCap, skipCap, sh);
}

// ---- A query alone of few candidates, fused with its decodes ---------------
// (and a wave of one OR pass's q_init with its decode: or_first below)
//
// When both columns share a format, a query alone of few candidates runs
// as the upload of its table and one kernel per list: and_first_<stem>
// (q_init's work for the slot, the decode of the shortest list into the
// candidates, and, in its last CTA, list 1's selection as
// and_select_rows'), then one and_stepdec_<stem> per further list (the
// decode of the step's rows and, in its last CTA, step_body). So no
// decode launch and no q_init: the ticket is a zero word that the table
// upload brings, and each last CTA clears it for the next kernel. The
// kernels run BIG threads a CTA; Fused<F>::ROWS rows (blocks of both
// columns, a warp each) at a time per CTA, their staging in the shared
// memory the CTA's tail then takes.

// Fused<F>: the rows a CTA decodes at a time (16, or 4 for formats of
// large staging, so that the staging fits 40 KiB), and the shared memory
// of a fused kernel in 16-byte chunks: the staging, or FIN_CAP keys (and
// so SKIP_CAP words) if more. The host's fusedRows repeats ROWS.
template <int F>
struct Fused {
  enum {
    ROW16 = 2 * (Fmt<F>::CAP16 + Fmt<F>::EXTRA16),
    ROWS = ROW16 * 16 * (BIG / 64) <= 40960 ? BIG / 64 : 4,
    SH16 = ROWS * ROW16 > FIN_CAP / 2 ? ROWS * ROW16 : FIN_CAP / 2
  };
};

#define COL_PARAMS                                                                                              \
  const u8 *dData, u64 dDataLen, const u64 *dOffs, const u32 *dCounts, const u32 *dBases, u64 dTotal,           \
      const u8 *fData, u64 fDataLen, const u64 *fOffs, const u32 *fCounts, u64 fTotal
#define COL_ARGS dData, dDataLen, dOffs, dCounts, dBases, dTotal, fData, fDataLen, fOffs, fCounts, fTotal

// fused_rows decodes rows [0, n): row r is block blockOf(r) of both
// columns (NONE: no block), its docids to docs + r * bs and its
// frequencies' values to freqs + r * bs. The CTAs take Fused<F>::ROWS
// rows at a time, grid-stride, warp 2j (docids) and 2j+1 (frequencies)
// the j-th, staging in sh; the docids' warp then calls
// rowDone(r, row's docids, its values).
template <int F, class B, class D>
static __device__ void fused_rows(uint4* sh, COL_PARAMS, u32 n, B blockOf, D rowDone, u32* docs, u32* freqs,
                                  u64 bs) {
  typedef Fmt<F> T;
  const u32 rows = Fused<F>::ROWS;
  u32 w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (w >= 2 * rows) return;
  uint4* stg = sh + w * (T::CAP16 + T::EXTRA16);
  for (u32 r = blockIdx.x * rows + (w >> 1); r < n; r += gridDim.x * rows) {
    u32 b = blockOf(r);
    if (b == NONE) continue;
    __syncwarp();  // the warp's reads of its previous block's staging are done
    if ((w & 1) == 0) {
      decode_block<F, true>(stg, stg + T::CAP16, dData, dDataLen, dOffs, dCounts, dBases, b, dTotal,
                            docs + (u64)r * bs, bs, lane);
      __syncwarp();  // the row's docids are visible to every lane
      if (b < dTotal) rowDone(r, docs + (u64)r * bs, umin(__ldg(dCounts + b), (u32)bs));
    } else
      decode_block<F, false>(stg, stg + T::CAP16, fData, fDataLen, fOffs, fCounts, 0, b, fTotal,
                             freqs + (u64)r * bs, bs, lane);
  }
}

// and_first sets up the slot at state (words words zeroed, then the need
// and the shortest list's count, as q_init), decodes the shortest list's
// blocks into cand and fm1, and in its last CTA selects list 1's rows
// (select_rows). ticket: zero.
template <int F>
static __device__ void and_first(const u32* tab, u64 M, u32* state, u64 words, COL_PARAMS, u32* cand, u32* fm1,
                                 u64 bs, const u32* lastDoc, u32* blk, u32* sel, u64 selRows, u32* row, u64 skipCap,
                                 u32* ticket) {
  __shared__ uint4 sh[Fused<F>::SH16];
  AndWave a = and_wave(tab, 1, M);
  if (blockIdx.x == 0) {
    for (u64 j = threadIdx.x; j < words; j += blockDim.x) state[j] = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
      state[S_NEED] = a.need[0];
      state[S_STEPS] = a.n1[0];
    }
  }
  u32 first = a.first[0];
  fused_rows<F>(sh, COL_ARGS, a.nb[0], [&](u32 r) { return first + r; }, [](u32, const u32*, u32) {}, cand, fm1, bs);
  if (!last_cta(ticket)) return;
  __threadfence();
  // select_rows reads the candidates other CTAs decoded: its loads of
  // cand are the first in this kernel's last CTA, so no stale L1 line.
  select_rows(a, M, 1, cand, state, lastDoc, blk, sel, selRows, row, 0, 1, reinterpret_cast<u32*>(sh), skipCap);
}

// and_stepdec decodes the rows that sel lists for step li (sel[r] for the
// S_STEPS+li-1 candidates, NONE for none) into docs and freqs; the warp
// that decoded a row's docids then searches it for the row's candidates
// (those from r on whose row is r: a block's candidates are consecutive),
// in registers, writing each one's place in the row, or NONE, to at. Its last CTA runs
// step_body on at. ticket: zero.
template <int F>
static __device__ void and_stepdec(const u32* tab, u64 M, u64 li, const u32* cand, u32* state, u32* blk, u32* row,
                                   u32* sel, u64 selRows, u32* docs, u32* at, u32* freqs, u64 bs, const u32* lastDoc,
                                   const u32* fm1In, u32* fm1Out, u64 C, u32* candOut, const float* norms, u64 k1p1,
                                   u64* keys, u64 shift, u64 bits, u64* result, u64 resultCap, u64* bnd, u64 bndCap,
                                   u64 skipCap, COL_PARAMS, u32* ticket) {
  __shared__ uint4 sh[Fused<F>::SH16];
  u32 n = state[S_STEPS + li - 1];
  auto search = [&](u32 r, const u32* d, u32 len) {
    // The row in registers, PER values a lane (NONE past len: still
    // sorted), read in one round of independent loads; each lane then
    // finds its candidate by shuffles: the first lane whose last value
    // reaches it (five halvings of 32 lanes), then that lane's values. A
    // block the decoder takes holds at most the format's B values.
    const u32 PER = Fmt<F>::B / 32, lane = threadIdx.x & 31;
    u32 v[PER];
#pragma unroll
    for (u32 k = 0; k < PER; k++) v[k] = lane * PER + k < len ? d[lane * PER + k] : NONE;
    for (u32 i0 = r;; i0 += 32) {
      u32 i = i0 + lane;
      bool mine = i < n && row[i] == r;
      if (__ballot_sync(FULL, mine) == 0) break;  // a block's candidates are consecutive
      u32 c = mine ? cand[i] : 0, lo = 0, hi = 31;
#pragma unroll
      for (int h = 0; h < 5; h++) {
        u32 mid = (lo + hi) >> 1;
        if (__shfl_sync(FULL, v[PER - 1], mid) >= c)
          hi = mid;
        else
          lo = mid + 1;
      }
      u32 p = NONE;
#pragma unroll
      for (u32 k = 0; k < PER; k++)
        if (__shfl_sync(FULL, v[k], lo) == c) p = lo * PER + k;
      if (mine) at[i] = p;
    }
  };
  fused_rows<F>(sh, COL_ARGS, n, [&](u32 r) { return sel[r]; }, search, docs, freqs, bs);
  if (!last_cta(ticket)) return;
  __threadfence();
  step_body(tab, M, li, cand, state, blk, row, sel, selRows, docs, at, freqs, dCounts, bs, lastDoc, fm1In, fm1Out, C,
            candOut, norms, k1p1, keys, shift, bits, result, resultCap, bnd, bndCap, skipCap,
            reinterpret_cast<u64*>(sh));
}

// FUSED_KERNEL starts the fused kernels' declarations: they are launched
// by name stem, as the decoders, so kernelgen (which reads the plain
// extern "C" declarations) writes no wrappers for them.
#define FUSED_KERNEL extern "C"
#define DEFINE_FUSED(name, F)                                                                                     \
  FUSED_KERNEL __global__ void __launch_bounds__(BIG)                                                            \
      and_first_##name(const u32* tab, u64 M, u32* state, u64 words, COL_PARAMS, u32* cand, u32* fm1, u64 bs,     \
                       const u32* lastDoc, u32* blk, u32* sel, u64 selRows, u32* row, u64 skipCap, u32* ticket) { \
    and_first<F>(tab, M, state, words, COL_ARGS, cand, fm1, bs, lastDoc, blk, sel, selRows, row, skipCap, ticket); \
  }                                                                                                               \
  FUSED_KERNEL __global__ void __launch_bounds__(BIG) and_stepdec_##name(                                        \
      const u32* tab, u64 M, u64 li, const u32* cand, u32* state, u32* blk, u32* row, u32* sel, u64 selRows,      \
      u32* docs, u32* at, u32* freqs, u64 bs, const u32* lastDoc, const u32* fm1In, u32* fm1Out, u64 C,           \
      u32* candOut, const float* norms, u64 k1p1, u64* keys, u64 shift, u64 bits, u64* result, u64 resultCap,     \
      u64* bnd, u64 bndCap, u64 skipCap, COL_PARAMS, u32* ticket) {                                               \
    and_stepdec<F>(tab, M, li, cand, state, blk, row, sel, selRows, docs, at, freqs, bs, lastDoc, fm1In, fm1Out,  \
                   C, candOut, norms, k1p1, keys, shift, bits, result, resultCap, bnd, bndCap, skipCap, COL_ARGS, \
                   ticket);                                                                                       \
  }                                                                                                               \
  FUSED_KERNEL __global__ void __launch_bounds__(BIG)                                                            \
      or_first_##name(u32* state, u64 words, const u32* needs, u32* zero, u64 zeroWords, const u32* segRow,       \
                      const u32* segFirst, u64 segs, COL_PARAMS, u32* docs, u32* fm1, u64 bs) {                   \
    or_first<F>(state, words, needs, zero, zeroWords, segRow, segFirst, segs, COL_ARGS, docs, fm1, bs);            \
  }

// or_first is q_init and the decode of a wave of one OR pass in one
// kernel: it zeroes the words state words of the slot and sets its need
// (needs[0]), zeroes zeroWords words at zero (histogram, ticket), and
// decodes the segments' rows (segment s, of segs, holds rows segRow[s] ..
// segRow[s+1]-1, its list's blocks from segFirst[s] on) into docs and fm1.
template <int F>
static __device__ void or_first(u32* state, u64 words, const u32* needs, u32* zero, u64 zeroWords, const u32* segRow,
                                const u32* segFirst, u64 segs, COL_PARAMS, u32* docs, u32* fm1, u64 bs) {
  __shared__ uint4 sh[Fused<F>::ROWS * Fused<F>::ROW16];
  u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x, step = (u64)gridDim.x * blockDim.x;
  for (u64 j = g; j < zeroWords; j += step) zero[j] = 0;
  if (blockIdx.x == 0) {
    for (u64 j = threadIdx.x; j < words; j += blockDim.x) state[j] = 0;
    __syncthreads();
    if (threadIdx.x == 0) state[S_NEED] = needs[0];
  }
  // Row r's segment: the last s with segRow[s] <= r.
  auto block = [&](u32 r) {
    u32 lo = 0, hi = (u32)segs;
    while (hi - lo > 1) {
      u32 mid = (lo + hi) >> 1;
      if (segRow[mid] <= r)
        lo = mid;
      else
        hi = mid;
    }
    return segFirst[lo] + (r - segRow[lo]);
  };
  fused_rows<F>(sh, COL_ARGS, segRow[segs], block, [](u32, const u32*, u32) {}, docs, fm1, bs);
}

DEFINE_FUSED(bp128, F_BP128)
DEFINE_FUSED(bp256, F_BP256)
DEFINE_FUSED(vbyte128, F_VB128)
DEFINE_FUSED(vbyte1024, F_VB1024)
DEFINE_FUSED(pfordelta, F_PFOR)
DEFINE_FUSED(rice, F_RICE)

// ---- Disjunctive pass -----------------------------------------------------

// or_score adds the term scores of n postings (docids and freq-1) to their
// documents' accumulators.
extern "C" __global__ void __launch_bounds__(TILE)
    or_score(const u32* docs, const u32* fm1, u64 n, u64 idf, u64 k1p1, const float* norms, float* acc) {
  float w = __uint_as_float((u32)idf), k = __uint_as_float((u32)k1p1);
  for (u64 i = (u64)blockIdx.x * TILE + threadIdx.x; i < n; i += (u64)gridDim.x * TILE) {
    u32 d = docs[i];
    acc[d] = __fadd_rn(acc[d], term_score(w, fm1[i] + 1, norms[d], k));
  }
}

// A segment of a wave is one query's list at one position: rows [r0, r1)
// of the decoded blocks, full (bs postings) but the last, which holds the
// rest of the list's df postings.
static __device__ __forceinline__ u32 row_count(u32 r, u32 r0, u32 r1, u32 df, u32 bs) {
  return r + 1 < r1 ? bs : df - (r1 - 1 - r0) * bs;
}

// find_row is the first row r in [a, r1) of a segment whose last docid is
// >= x, or r1. The warp searches together: each step probes 32 evenly
// spaced rows and keeps those between the last probe below x and the first
// at or after it, so n rows take about log32(n) steps. Every lane of the
// warp calls it.
static __device__ u32 find_row(const u32* docs, u32 bs, u32 r0, u32 r1, u32 df, u32 a, u32 x) {
  u32 lane = threadIdx.x & 31, b = r1;
  // The answer lies in [a, b]; b is r1 or a row that reaches x.
  while (a < b) {
    u32 step = (b - a + 31) / 32, r = a + lane * step;
    u32 m = __ballot_sync(FULL, r >= b || docs[(u64)r * bs + row_count(r, r0, r1, df, bs) - 1] >= x);
    if (m == 0) {
      a += 31 * step + 1;
      continue;
    }
    u32 f = __ffs(m) - 1;
    if (f == 0) return a;
    u32 end = a + f * step;
    a += (f - 1) * step + 1;
    b = end < b ? end : b;
  }
  return a;
}

// or_span_wave scores a wave of OR queries by document span (see "Waves"
// above). CTA c serves query q = c / spans and the documents [lo, lo +
// OR_SPAN), lo = (c % spans) * OR_SPAN, with their accumulators in shared
// memory. Query q's positions are segments qSeg[q] .. qSeg[q+1]-1, in query
// order; segment s is rows segRow[s] .. segRow[s+1]-1 (docids in docs,
// freq-1 in fm1, bs apart) of a list of segDf[s] postings, with idf bits
// segIdf[s]. Warp w finds the rows of segment s0 + w that overlap the span
// (find_row, twice), for up to TILE/32 segments at a time; then the CTA adds
// each segment's postings in turn, a barrier between segments: a document
// appears once in a list and scores add up in query order, as alone.
//
// Only the span's best documents can be in the query's top-k: a document
// with needs[q] others above it in its span has them above it in the query.
// So the CTA finds a cut at or below the needs[q]-th largest score of its
// span (span_cut) and appends the keys of the touched documents scoring at
// least that (all of them when fewer are touched) to keys + keyOff[q], up
// to keyCap[q], reserving their places at the query's S_KEYS word with one
// atomic.
//
// With a ticket (a wave of one, its keys few: the host decides), every
// CTA also histograms digit [shift, shift+bits) of the keys it emits into
// hist (zeroed), and the last CTA then runs the rest of the top-k (the
// pick, cta_topk: into result and bnd, bndCap keys, and the finish): no
// top-k kernels, whose launches cost more than one CTA's walk over a few
// thousand keys.
extern "C" __global__ void __launch_bounds__(TILE)
    or_span_wave(const u32* docs, const u32* fm1, const u32* qSeg, const u32* segRow, const u32* segIdf,
                 const u32* segDf, u64 bs, u64 k1p1, const float* norms, u64 spans, u32* state, u64 stride, u64* keys,
                 const u32* keyOff, const u32* keyCap, const u32* needs, u64 shift, u64 bits, u32* hist,
                 u64* result, u64 resultCap, u64* bnd, u64 bndCap, u32* ticket) {
  // The accumulators, then (the last CTA of a wave of one) the top-k's
  // histogram and sort buffer: OR_SPAN floats are FIN_CAP keys.
  __shared__ u64 sh[OR_SPAN / 2];
  float* acc = reinterpret_cast<float*>(sh);
  __shared__ u32 seg[TILE / 32][6];  // per segment of the round: rows [a, e), r0, r1, df, idf bits
  __shared__ u32 base, emitted;
  float k = __uint_as_float((u32)k1p1);
  u64 q = blockIdx.x / spans;
  u32 lo = (u32)(blockIdx.x % spans) * OR_SPAN, hi = lo + OR_SPAN, lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  u32 b32 = (u32)bs;
  for (u32 j = threadIdx.x; j < OR_SPAN; j += TILE) acc[j] = 0.0f;
  for (u32 s0 = qSeg[q], s1 = qSeg[q + 1]; s0 < s1; s0 += TILE / 32) {
    if (s1 - s0 <= TILE / 64) {
      // Few segments: warps 2v and 2v+1 find segment s0+v's first and
      // last rows at once (the last row searched from r0 is the same).
      u32 v = w >> 1, s = s0 + v;
      if (s < s1) {
        u32 r0 = segRow[s], r1 = segRow[s + 1], df = segDf[s];
        u32 x = find_row(docs, b32, r0, r1, df, r0, (w & 1) ? hi : lo);
        if (lane == 0) {
          seg[v][w & 1] = (w & 1) == 0 ? x : (x < r1 ? x + 1 : r1);
          if ((w & 1) == 0) {
            seg[v][2] = r0;
            seg[v][3] = r1;
            seg[v][4] = df;
            seg[v][5] = segIdf[s];
          }
        }
      }
    } else if (s0 + w < s1) {
      u32 s = s0 + w, r0 = segRow[s], r1 = segRow[s + 1], df = segDf[s];
      u32 a = find_row(docs, b32, r0, r1, df, r0, lo);
      u32 e = find_row(docs, b32, r0, r1, df, a, hi);
      if (lane == 0) {
        u32 v[6] = {a, e < r1 ? e + 1 : r1, r0, r1, df, segIdf[s]};
        for (int i = 0; i < 6; i++) seg[w][i] = v[i];
      }
    }
    __syncthreads();
    for (u32 v = 0; v < TILE / 32 && s0 + v < s1; v++) {
      u32 a = seg[v][0], n = (seg[v][1] - a) * b32, r0 = seg[v][2], r1 = seg[v][3], df = seg[v][4];
      float idf = __uint_as_float(seg[v][5]);
      // OR_UNROLL postings per thread at a time: their loads are in flight
      // together.
      for (u32 i0 = threadIdx.x; i0 < n; i0 += OR_UNROLL * TILE) {
        u32 d[OR_UNROLL], f[OR_UNROLL];
        float nm[OR_UNROLL];
#pragma unroll
        for (int u = 0; u < OR_UNROLL; u++) {
          u32 i = i0 + u * TILE, r = a + i / b32, j = i - (r - a) * b32;
          d[u] = NONE;
          f[u] = 0;
          if (i < n && j < row_count(r, r0, r1, df, b32)) {
            u64 at = (u64)r * bs + j;
            d[u] = docs[at];
            f[u] = fm1[at];
          }
        }
#pragma unroll
        for (int u = 0; u < OR_UNROLL; u++) nm[u] = d[u] >= lo && d[u] < hi ? norms[d[u]] : 0.0f;
#pragma unroll
        for (int u = 0; u < OR_UNROLL; u++)
          if (d[u] >= lo && d[u] < hi)
            acc[d[u] - lo] = __fadd_rn(acc[d[u] - lo], term_score(idf, f[u] + 1, nm[u], k));
      }
      __syncthreads();
    }
  }
  // Thread t owns documents [t * per, (t+1) * per) of the span.
  const u32 per = OR_SPAN / TILE;
  u32 first = threadIdx.x * per, total;
  u32 cut = span_cut(acc, first, per, needs[q], &total);
  if (threadIdx.x == 0) {
    base = total != 0 ? atomicAdd(slot_of(state, q, stride) + S_KEYS, total) : 0;
    emitted = 0;
  }
  __syncthreads();
  u64* out = keys + keyOff[q];
  u32 cap = keyCap[q];
  for (u32 i = 0; i < per; i++) {
    u32 j = first + ((i + threadIdx.x) & (per - 1));
    float f = acc[j];
    if (f != 0.0f && score_bits(f) >= cut) {
      u32 at = base + atomicAdd(&emitted, 1u);
      if (at < cap) {
        u64 key = make_key(f, lo + j);
        out[at] = key;
        if (ticket != 0) atomicAdd(&hist[(key >> shift) & ((1u << bits) - 1)], 1u);
      }
    }
  }
  if (ticket == 0 || !last_cta(ticket)) return;
  __threadfence();
  u32* st = slot_of(state, q, stride);
  u32 n = umin(((const volatile u32*)st)[S_KEYS], cap);
  pick_body(hist, bits, 0, st);
  cta_topk(out, n, shift, bits, hist, st, result, resultCap, bnd, bndCap, sh);
}

// ---- Top-k ----------------------------------------------------------------

// q_init zeroes words state words, then sets the top-k's need (needs[q]
// for CTA q when needs is not null, else need) and, at countWord (when not
// NONE), the count counts[q]. CTA q < W initializes the slot at state + q *
// stride bytes. Every CTA also zeroes its share of the zeroWords words at
// zero (histograms, accumulators, tickets: what a run must find zeroed)
// and lists its share of the blocks a wave decodes first, one row each in
// sel: segment s of segs (one query's list at one position) holds rows
// segRow[s] .. segRow[s+1]-1, its list's blocks from segFirst[s] on; rows
// from segRow[segs] up to rows are NONE (the decoders skip them, so the
// host may launch them over a rounded count). So the grid may hold more
// than W CTAs, and a run's first launch prepares all of it.
extern "C" __global__ void __launch_bounds__(TILE)
    q_init(u32* state, u64 stride, u64 words, const u32* needs, u64 need, u64 countWord, const u32* counts, u64 W,
           u32* zero, u64 zeroWords, const u32* segRow, const u32* segFirst, u64 segs, u32* sel, u64 rows) {
  u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x, step = (u64)gridDim.x * blockDim.x;
  for (u64 j = g; j < zeroWords; j += step) zero[j] = 0;
  for (u64 s = blockIdx.x; s < segs; s += gridDim.x)
    for (u32 r = segRow[s] + threadIdx.x; r < segRow[s + 1]; r += blockDim.x) sel[r] = segFirst[s] + (r - segRow[s]);
  if (segs != 0)
    for (u64 r = segRow[segs] + g; r < rows; r += step) sel[r] = NONE;
  if (blockIdx.x >= W) return;
  state = slot_of(state, blockIdx.x, stride);
  for (u64 j = threadIdx.x; j < words; j += blockDim.x) state[j] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    state[S_NEED] = needs != 0 ? needs[blockIdx.x] : (u32)need;
    if (countWord != NONE) state[countWord] = counts[blockIdx.x];
  }
}

// For the dense form, element j of the input is document j's accumulator
// (0: not matched); acc holds a multiple of 4 floats, zeros past n.
// The bodies run as CTA bx of gx, so that a wave's grid can hold gx CTAs
// per query.
template <bool DENSE>
static __device__ __forceinline__ void hist_body(const u64* keys, const float* acc, u64 n, u64 shift, u64 bits,
                                                 const u32* state, u32* hist, u64 bx, u64 gx) {
  __shared__ u32 h[1 << HIST_BITS];
  if (state[S_DONE]) return;
  u32 nbins = 1u << bits, mask = nbins - 1;
  for (u32 j = threadIdx.x; j < nbins; j += blockDim.x) h[j] = 0;
  __syncthreads();
  u64 step = gx * blockDim.x;
  if (DENSE) {
    const float4* a4 = reinterpret_cast<const float4*>(acc);
    for (u64 j = bx * blockDim.x + threadIdx.x; j < (n + 3) / 4; j += step) {
      float4 v = a4[j];
      float f[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int t = 0; t < 4; t++)
        if (f[t] != 0.0f) atomicAdd(&h[(make_key(f[t], (u32)(4 * j + t)) >> shift) & mask], 1u);
    }
  } else {
    for (u64 j = bx * blockDim.x + threadIdx.x; j < n; j += step) atomicAdd(&h[(keys[j] >> shift) & mask], 1u);
  }
  __syncthreads();
  for (u32 j = threadIdx.x; j < nbins; j += blockDim.x)
    if (h[j] != 0) atomicAdd(&hist[j], h[j]);
}

// topk_hist_keys histograms digit [shift, shift+bits) of *countp keys.
extern "C" __global__ void __launch_bounds__(TILE)
    topk_hist_keys(const u64* keys, const u32* countp, u64 shift, u64 bits, const u32* state, u32* hist) {
  hist_body<false>(keys, 0, *countp, shift, bits, state, hist, blockIdx.x, gridDim.x);
}

// topk_hist_dense histograms the digit of n documents' accumulators. The
// grid holds gx CTAs per query of a wave: query q's accumulators start at
// acc + q * accStride, its slot at state + q * stride bytes, its histogram
// at hist + q * histStride.
extern "C" __global__ void __launch_bounds__(TILE)
    topk_hist_dense(const float* acc, u64 n, u64 accStride, u64 shift, u64 bits, const u32* state, u64 stride,
                    u32* hist, u64 histStride, u64 gx) {
  u64 q = blockIdx.x / gx;
  hist_body<true>(0, acc + q * accStride, n, shift, bits, slot_of(state, q, stride), hist + q * histStride,
                  blockIdx.x % gx, gx);
}

// topk_pick finds, from the top, the bin where the count reaches S_NEED,
// and sets what the compaction does: bins >= S_SURE go to the result, bin
// S_BND (if any) to the boundary, from which S_NEED keys are still needed.
// CTA q serves the query whose histogram is at hist + q * histStride and
// slot at state + q * stride bytes (one CTA for one query).
extern "C" __global__ void __launch_bounds__(BIG)
    topk_pick(const u32* hist, u64 histStride, u64 bits, u64 round, u32* state, u64 stride) {
  pick_body(hist + blockIdx.x * histStride, bits, round, slot_of(state, blockIdx.x, stride));
}

// pick_body is topk_pick's work for one query; every thread of the CTA
// calls it. hist may have been written by other CTAs of the kernel that
// calls it, hence the volatile reads.
static __device__ void pick_body(const volatile u32* hist, u64 bits, u64 round, u32* state) {
  __shared__ u32 sure, bnd, fin, need2;
  u32 done = state[S_DONE], need = state[S_NEED];
  if (done) return;
  int nbins = 1 << bits;
  int per = (nbins + blockDim.x - 1) / blockDim.x;
  // Thread t sums the t-th chunk of bins from the top.
  int top = nbins - (int)threadIdx.x * per;
  int bot = top - per;
  top = top < 0 ? 0 : top;
  bot = bot < 0 ? 0 : bot;
  u32 sum = 0;
  for (int j = bot; j < top; j++) sum += hist[j];
  if (threadIdx.x == 0) {
    // Fewer keys than needed: all of them.
    sure = 0;
    bnd = NONE;
    fin = 1;
    need2 = need;
  }
  u32 total;
  u32 above = block_scan(sum, &total);  // keys in the bins above the chunk
  if (above < need && above + sum >= need) {
    u32 acc = above;
    for (int j = top - 1; j >= bot; j--) {
      u32 h = hist[j];
      if (acc + h >= need) {
        if (acc + h == need) {
          sure = j;
        } else {
          sure = j + 1;
          bnd = j;
          fin = 0;
          need2 = need - acc;
        }
        break;
      }
      acc += h;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    state[S_SURE] = sure;
    state[S_BND] = bnd;
    state[S_FINAL] = fin;
    state[S_NEED] = need2;
    state[S_BC0 + (round & 1)] = 0;
  }
  __syncthreads();  // a next call rewrites the shared words
}

// append writes the keys of the warp's lanes whose pred holds at
// consecutive places of out from *count on (up to cap). The whole warp
// calls it.
static __device__ __forceinline__ void append(u64 key, bool pred, u64* out, u32* count, u64 cap) {
  u32 m = __ballot_sync(FULL, pred);
  if (m == 0) return;
  int lane = threadIdx.x & 31;
  int leader = __ffs(m) - 1;
  u32 base = 0;
  if (lane == leader) base = atomicAdd(count, (u32)__popc(m));
  base = __shfl_sync(FULL, base, leader);
  u64 at = (u64)base + __popc(m & ((1u << lane) - 1));
  if (pred && at < cap) out[at] = key;
}

template <bool DENSE>
static __device__ __forceinline__ void compact_body(const u64* keys, const float* acc, u64 n, u64 shift, u64 bits,
                                                    u64 round, u32* state, u64* result, u64 resultCap, u64* bnd,
                                                    u64 bndCap, u64 bx, u64 gx) {
  if (state[S_DONE]) return;
  u32 sure = state[S_SURE], b = state[S_BND], mask = (1u << bits) - 1;
  u32* rc = state + S_RESULT;
  u32* bc = state + S_BC0 + (round & 1);
  u64 step = gx * blockDim.x;
  u64 limit = DENSE ? (n + 3) / 4 : n;
  // The loop bound is uniform over a warp, so every lane reaches append.
  for (u64 base = bx * blockDim.x; base < limit; base += step) {
    u64 j = base + threadIdx.x;
    if (DENSE) {
      float4 v = j < limit ? reinterpret_cast<const float4*>(acc)[j] : make_float4(0, 0, 0, 0);
      float f[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int t = 0; t < 4; t++) {
        u64 key = make_key(f[t], (u32)(4 * j + t));
        u32 bin = (u32)(key >> shift) & mask;
        bool ok = f[t] != 0.0f;
        append(key, ok && bin >= sure, result, rc, resultCap);
        append(key, ok && bin == b, bnd, bc, bndCap);
      }
    } else {
      bool ok = j < n;
      u64 key = ok ? keys[j] : 0;
      u32 bin = (u32)(key >> shift) & mask;
      append(key, ok && bin >= sure, result, rc, resultCap);
      append(key, ok && bin == b, bnd, bc, bndCap);
    }
  }
}

// topk_compact_keys moves the *countp keys of the round's input above the
// boundary bin to the result and those in it to bnd.
extern "C" __global__ void __launch_bounds__(TILE)
    topk_compact_keys(const u64* keys, const u32* countp, u64 shift, u64 bits, u64 round, u32* state, u64* result,
                      u64 resultCap, u64* bnd, u64 bndCap) {
  compact_body<false>(keys, 0, *countp, shift, bits, round, state, result, resultCap, bnd, bndCap, blockIdx.x,
                      gridDim.x);
}

// topk_compact_dense is topk_compact_keys over n documents' accumulators,
// gx CTAs per query of a wave as in topk_hist_dense: query q's result is
// at result + q * stride bytes, its boundary at bnd + q * bndCap.
extern "C" __global__ void __launch_bounds__(TILE)
    topk_compact_dense(const float* acc, u64 n, u64 accStride, u64 shift, u64 bits, u64 round, u32* state,
                       u64 stride, u64* result, u64 resultCap, u64* bnd, u64 bndCap, u64 gx) {
  u64 q = blockIdx.x / gx;
  compact_body<true>(0, acc + q * accStride, n, shift, bits, round, slot_of(state, q, stride),
                     slot_of(result, q, stride), resultCap, bnd + q * bndCap, bndCap, blockIdx.x % gx, gx);
}

// topk_finish ends the select: when the round's compaction completed the
// result, or when the boundary holds at most FIN_CAP keys, which it sorts
// (bitonic, descending) to append the S_NEED largest. Otherwise it leaves
// S_DONE clear and the host runs the next round on the boundary. CTA q
// serves the query whose boundary is at bnd + q * bndCap and slot and
// result at state and result + q * stride bytes.
extern "C" __global__ void __launch_bounds__(BIG)
    topk_finish(u64 round, const u64* bnd, u64 bndCap, u32* state, u64 stride, u64* result, u64 resultCap) {
  __shared__ u64 sk[FIN_CAP];
  finish_body(round, bnd + blockIdx.x * bndCap, slot_of(state, blockIdx.x, stride),
              slot_of(result, blockIdx.x, stride), resultCap, sk);
}

// finish_body is topk_finish's work for one query; every thread of the CTA
// calls it, with sk a shared array of FIN_CAP keys (the caller's, so that
// kernels with shared arrays of their own can lend one). The state's
// counts may have been added to by other CTAs of the kernel that calls it,
// hence the volatile reads.
static __device__ void finish_body(u64 round, const volatile u64* bnd, volatile u32* state, u64* result,
                                   u64 resultCap, u64* sk) {
  u32 done = state[S_DONE], fin = state[S_FINAL], m = state[S_BC0 + (round & 1)];
  u32 need = state[S_NEED], rc = state[S_RESULT];
  __syncthreads();  // every thread has read the state before thread 0 writes it
  if (done) return;
  if (fin) {
    if (threadIdx.x == 0) state[S_DONE] = 1;
    return;
  }
  if (m > FIN_CAP) return;
  u32 p = 32;
  while (p < m) p <<= 1;
  for (u32 j = threadIdx.x; j < p; j += blockDim.x) sk[j] = j < m ? bnd[j] : 0;
  __syncthreads();
  for (u32 size = 2; size <= p; size <<= 1) {
    for (u32 half = size >> 1; half > 0; half >>= 1) {
      for (u32 j = threadIdx.x; j < p; j += blockDim.x) {
        u32 q = j ^ half;
        if (q > j) {
          u64 a = sk[j], b = sk[q];
          bool desc = (j & size) == 0;
          if (desc ? a < b : a > b) {
            sk[j] = b;
            sk[q] = a;
          }
        }
      }
      __syncthreads();
    }
  }
  u32 take = umin(need, m);
  for (u32 j = threadIdx.x; j < take; j += blockDim.x)
    if ((u64)rc + j < resultCap) result[rc + j] = sk[j];
  if (threadIdx.x == 0) {
    state[S_RESULT] = rc + take;
    state[S_DONE] = 1;
  }
  __syncthreads();  // a next call rewrites sk
}

// ---- A query alone: the top-k in one CTA ------------------------------------
//
// When a query alone has few keys (a few thousand: the host decides by
// its size class), the last CTA of the kernel that wrote them selects its
// top-k in place of the top-k kernels: the kernel histograms as it
// writes the keys, its last CTA picks (pick_body) and runs cta_topk. The keys come from
// other CTAs of the same kernel, published before last_cta, hence the
// volatile reads. Each thread keeps CTA_UNROLL loads in flight: one CTA
// walks every key, so their latency, not bandwidth, bounds it.
//
// The keys of a query alone bunch at the top (OR's spans emit only their
// best), so round 0's boundary bin may hold thousands of them, whose sort
// in one CTA would cost more than the rest. Over CTA_SUB_MIN keys,
// cta_topk first splits that bin on the next SUB_BITS bits (one more walk
// over the keys) and keeps only the sub-bin that holds the k-th key as
// the boundary. The boundary's keys then share their top 12 + SUB_BITS
// bits, so the host's further rounds, if it needs any, stay exact.
#define CTA_UNROLL 8
#define CTA_SUB_MIN 256
#define SUB_BITS 11

// load_keys loads the keys base + u * blockDim.x + threadIdx.x, u <
// CTA_UNROLL, of the n keys into k (0 past n): their loads are in flight
// together.
static __device__ __forceinline__ void load_keys(const volatile u64* keys, u32 n, u32 base, u64* k) {
#pragma unroll
  for (int u = 0; u < CTA_UNROLL; u++) {
    u32 j = base + u * blockDim.x + threadIdx.x;
    k[u] = j < n ? keys[j] : 0;
  }
}

// cta_hist zeroes the shared histogram h and counts digit [shift,
// shift+bits) of those of the n keys whose digit [fshift, fshift+fbits)
// is fbin. Every thread of the CTA calls it.
static __device__ void cta_hist(const volatile u64* keys, u32 n, u64 shift, u64 bits, u32* h, u64 fshift, u64 fbits,
                                u32 fbin) {
  u32 nbins = 1u << bits, mask = nbins - 1, fmask = (1u << fbits) - 1;
  for (u32 j = threadIdx.x; j < nbins; j += blockDim.x) h[j] = 0;
  __syncthreads();
  for (u32 base = 0; base < n; base += CTA_UNROLL * blockDim.x) {
    u64 k[CTA_UNROLL];
    load_keys(keys, n, base, k);
#pragma unroll
    for (int u = 0; u < CTA_UNROLL; u++)
      if (base + u * blockDim.x + threadIdx.x < n && ((u32)(k[u] >> fshift) & fmask) == fbin)
        atomicAdd(&h[(k[u] >> shift) & mask], 1u);
  }
  __syncthreads();
}

// cta_topk ends round 0 after its pick (hist: its histogram, shared or
// global): the keys above the picked bin go to result and those in it to
// bnd (up to bndCap), counting in shared memory, after a split of a large
// bin (see above); then it finishes as topk_finish does, sorting in sk
// (FIN_CAP keys of shared memory, which may hold hist). A boundary over
// FIN_CAP keys leaves S_DONE clear: the host runs further rounds from
// bnd, as after topk_compact_*. Every thread calls it.
static __device__ void cta_topk(const volatile u64* keys, u32 n, u64 shift, u64 bits, const volatile u32* hist,
                                u32* state, u64* result, u64 resultCap, u64* bnd, u64 bndCap, u64* sk) {
  __shared__ u32 nres, nbnd;
  const volatile u32* vs = state;
  u32 done = vs[S_DONE], sure = vs[S_SURE], b = vs[S_BND], mask = (1u << bits) - 1;
  bool sub = !done && b != NONE && hist[b] > CTA_SUB_MIN;
  u32 sure2 = 0, b2 = NONE, shift2 = (u32)shift - SUB_BITS, mask2 = (1u << SUB_BITS) - 1;
  if (threadIdx.x == 0) {
    nres = vs[S_RESULT];
    nbnd = 0;
  }
  __syncthreads();  // every thread has read hist, which sk may hold
  if (sub) {
    // pick_body takes S_NEED, the keys still needed from bin b, and
    // leaves the sub-bins' cut in the state words.
    u32* h2 = reinterpret_cast<u32*>(sk);
    cta_hist(keys, n, shift2, SUB_BITS, h2, shift, bits, b);
    pick_body(h2, SUB_BITS, 0, state);
    sure2 = vs[S_SURE];
    b2 = vs[S_BND];
  }
  // done is uniform over the CTA, so every lane reaches append.
  for (u32 base = 0; !done && base < n; base += CTA_UNROLL * blockDim.x) {
    u64 k[CTA_UNROLL];
    load_keys(keys, n, base, k);
#pragma unroll
    for (int u = 0; u < CTA_UNROLL; u++) {
      bool ok = base + u * blockDim.x + threadIdx.x < n;
      u32 bin = (u32)(k[u] >> shift) & mask, bin2 = (u32)(k[u] >> shift2) & mask2;
      bool in = ok && bin == b;
      append(k[u], ok && (bin >= sure || (sub && in && bin2 >= sure2)), result, &nres, resultCap);
      append(k[u], in && (!sub || bin2 == b2), bnd, &nbnd, bndCap);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && !done) {
    state[S_RESULT] = nres;
    state[S_BC0] = nbnd;
  }
  __syncthreads();
  finish_body(0, bnd, state, result, resultCap, sk);
}

// topk_hist_wave and topk_compact_wave are topk_hist_keys and
// topk_compact_keys over the keys of a wave's passes, gx CTAs per query:
// query q's keys start at keys + keyOff[q], at most keyCap[q] of them,
// counted at its state word countWord (S_KEYS for or_span_wave's keys);
// its slot, histogram, result and boundary lie as in topk_hist_dense and
// topk_compact_dense.
//
// With a ticket (zeroed, see last_cta), the last CTA of topk_hist_wave
// then does topk_pick's work and the last of topk_compact_wave
// topk_finish's, for each of the w queries (gridDim.x / gx): two launches
// fewer for a query alone. They run TILE or BIG threads a CTA.
extern "C" __global__ void __launch_bounds__(BIG)
    topk_hist_wave(const u64* keys, const u32* keyOff, const u32* keyCap, u64 countWord, u64 shift, u64 bits,
                   u32* state, u64 stride, u32* hist, u64 histStride, u64 gx, u32* ticket) {
  u64 q = blockIdx.x / gx;
  const u32* st = slot_of(state, q, stride);
  hist_body<false>(keys + keyOff[q], 0, umin(st[countWord], keyCap[q]), shift, bits, st, hist + q * histStride,
                   blockIdx.x % gx, gx);
  if (ticket == 0 || !last_cta(ticket)) return;
  __threadfence();
  for (u64 p = 0; p < gridDim.x / gx; p++) pick_body(hist + p * histStride, bits, 0, slot_of(state, p, stride));
}

extern "C" __global__ void __launch_bounds__(BIG)
    topk_compact_wave(const u64* keys, const u32* keyOff, const u32* keyCap, u64 countWord, u64 shift, u64 bits,
                      u64 round, u32* state, u64 stride, u64* result, u64 resultCap, u64* bnd, u64 bndCap, u64 gx,
                      u32* ticket) {
  u64 q = blockIdx.x / gx;
  u32* st = slot_of(state, q, stride);
  compact_body<false>(keys + keyOff[q], 0, umin(st[countWord], keyCap[q]), shift, bits, round, st,
                      slot_of(result, q, stride), resultCap, bnd + q * bndCap, bndCap, blockIdx.x % gx, gx);
  __shared__ u64 sk[FIN_CAP];
  if (ticket == 0 || !last_cta(ticket)) return;
  __threadfence();
  for (u64 p = 0; p < gridDim.x / gx; p++)
    finish_body(round, bnd + p * bndCap, slot_of(state, p, stride), slot_of(result, p, stride), resultCap, sk);
}

// ---- Top-k by max tree (the paper's method, for comparison) ----------------
//
// Section 8.2 of the paper: the candidates are cut into groups of
// TREE_GROUP, each group's maximum forms the next level, and so on; the
// maximum is then taken k times, each time updating the branch it came
// from. Here over dense OR accumulators, two levels: topk_tree_build
// writes every group's largest key to lvl1 (0: no document of the group
// matched); topk_tree_select, one CTA, keeps the maxima of runs of
// TREE_GROUP lvl1 entries in shared memory and extracts the S_NEED largest
// keys: a key names its document, so the extracted document's accumulator
// is zeroed and its group's and run's maxima are recomputed. The
// accumulators are scratch, spent by the selection. The host uses it only
// while the runs fit in shared memory (TREE_RUNS).
#define TREE_GROUP 512
#define TREE_RUNS 1024

// block_max returns the largest x over the CTA's threads (every thread
// calls it; blockDim.x is a multiple of 32).
static __device__ u64 block_max(u64 x) {
  __shared__ u64 part[32];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    u64 y = __shfl_sync(FULL, x, lane ^ d);
    x = y > x ? y : x;
  }
  if (lane == 0) part[w] = x;
  __syncthreads();
  if (w == 0) {
    x = lane < nw ? part[lane] : 0;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      u64 y = __shfl_sync(FULL, x, lane ^ d);
      x = y > x ? y : x;
    }
    if (lane == 0) part[0] = x;
  }
  __syncthreads();
  x = part[0];
  __syncthreads();  // the next call reuses part
  return x;
}

// group_max is the largest key of accumulators [g*TREE_GROUP, ...) below n.
static __device__ u64 group_max(const float* acc, u64 n, u64 g) {
  u64 best = 0;
  for (u64 j = threadIdx.x; j < TREE_GROUP; j += blockDim.x) {
    u64 d = g * TREE_GROUP + j;
    if (d < n) {
      float f = acc[d];
      u64 key = f != 0.0f ? make_key(f, (u32)d) : 0;
      best = key > best ? key : best;
    }
  }
  return block_max(best);
}

// run_max is the largest of lvl1 entries [r*TREE_GROUP, ...) below groups.
static __device__ u64 run_max(const u64* lvl1, u64 groups, u64 r) {
  u64 best = 0;
  for (u64 j = threadIdx.x; j < TREE_GROUP; j += blockDim.x) {
    u64 g = r * TREE_GROUP + j;
    if (g < groups) best = lvl1[g] > best ? lvl1[g] : best;
  }
  return block_max(best);
}

// topk_tree_build writes each group's largest key to lvl1.
extern "C" __global__ void __launch_bounds__(TILE) topk_tree_build(const float* acc, u64 n, u64* lvl1, u64 groups) {
  for (u64 g = blockIdx.x; g < groups; g += gridDim.x) {
    u64 m = group_max(acc, n, g);
    if (threadIdx.x == 0) lvl1[g] = m;
  }
}

// topk_tree_select extracts the S_NEED largest keys into result and marks
// the state done. One CTA of BIG threads.
extern "C" __global__ void __launch_bounds__(BIG)
    topk_tree_select(float* acc, u64 n, u64* lvl1, u64 groups, u32* state, u64* result, u64 resultCap) {
  __shared__ u64 lvl2[TREE_RUNS];
  for (u64 r = threadIdx.x; r < TREE_RUNS; r += blockDim.x) {
    u64 best = 0;
    for (u64 g = r * TREE_GROUP; g < groups && g < (r + 1) * TREE_GROUP; g++) best = lvl1[g] > best ? lvl1[g] : best;
    lvl2[r] = best;
  }
  __syncthreads();
  u32 need = state[S_NEED], got = 0;
  for (; got < need && got < resultCap; got++) {
    u64 top = 0;
    for (u64 r = threadIdx.x; r < TREE_RUNS; r += blockDim.x) top = lvl2[r] > top ? lvl2[r] : top;
    top = block_max(top);
    if (top == 0) break;
    u32 d = NONE - (u32)top;
    u64 g = d / TREE_GROUP, r = g / TREE_GROUP;
    if (threadIdx.x == 0) {
      result[got] = top;
      acc[d] = 0.0f;
    }
    __syncthreads();
    u64 m = group_max(acc, n, g);
    if (threadIdx.x == 0) lvl1[g] = m;
    __syncthreads();
    m = run_max(lvl1, groups, r);
    if (threadIdx.x == 0) lvl2[r] = m;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    state[S_RESULT] = got;
    state[S_DONE] = 1;
  }
}

// ---- List intersection (bench intersect --engine gpu) ---------------------
//
// The list-intersection report's algorithms, coarse-grained: list 0 (the
// shortest) gives the candidates, lists 1..m-1 are searched. meta holds
// ISECT_META words per list: its offset and length in data; for hash, the
// offset of its bucket starts in hstart, its bucket count and its bucket
// shift (as intersect.HashTable); for bitmap, the offset and length in
// 64-bit words of its bitset in bits (as intersect.Bitset). Each algorithm
// sets flags[i] to 1 when candidate i is in every list; isect_count,
// tile_scan and isect_scatter then compact the survivors in order.
#define ISECT_META 8
#define ISECT_MAX_LISTS 8

// gallop returns the first position in [lo, end) whose value is >= x, or
// end, searching from lo by doubling steps, then by bisection.
static __device__ __forceinline__ u32 gallop(const u32* a, u32 lo, u32 end, u32 x) {
  u32 hi = lo, step = 1;
  while (hi < end && a[hi] < x) {
    lo = hi + 1;
    hi = (end - hi > step) ? hi + step : end;
    step <<= 1;
  }
  return lower_bound(a, lo, hi, x);
}

// isect_seg: SVS (adp == 0) or ADP (adp != 0), one thread per segment of
// seg (at most 32) consecutive candidates. With the exact start, each
// thread first finds by binary search, in every other list, where its
// segment starts (the first element >= its first candidate) and where the
// next segment starts; it then works inside those ranges only. SVS filters
// the segment list by list, ADP candidate by candidate across the lists;
// both gallop from the last position found.
extern "C" __global__ void __launch_bounds__(TILE)
    isect_seg(const u32* data, const u64* meta, u64 m, u64 seg, u64 adp, u32* flags) {
  const u32* cand = data + meta[0];
  u64 n = meta[1];
  for (u64 t = (u64)blockIdx.x * TILE + threadIdx.x; t * seg < n; t += (u64)gridDim.x * TILE) {
    u64 lo = t * seg, hi = lo + seg < n ? lo + seg : n;
    u32 pos[ISECT_MAX_LISTS], end[ISECT_MAX_LISTS];
    for (u64 j = 1; j < m; j++) {
      const u32* l = data + meta[j * ISECT_META];
      u32 len = (u32)meta[j * ISECT_META + 1];
      pos[j] = lower_bound(l, 0, len, cand[lo]);
      end[j] = hi < n ? lower_bound(l, pos[j], len, cand[hi]) : len;
    }
    u32 alive = hi - lo == 32 ? FULL : (1u << (hi - lo)) - 1;
    if (adp) {
      for (u64 i = lo; i < hi; i++) {
        u32 c = cand[i];
        for (u64 j = 1; j < m; j++) {
          const u32* l = data + meta[j * ISECT_META];
          u32 p = gallop(l, pos[j], end[j], c);
          pos[j] = p;
          if (p == end[j] || l[p] != c) {
            alive &= ~(1u << (i - lo));
            break;
          }
        }
      }
    } else {
      for (u64 j = 1; j < m && alive != 0; j++) {
        const u32* l = data + meta[j * ISECT_META];
        for (u64 i = lo; i < hi; i++) {
          if (!(alive >> (i - lo) & 1)) continue;
          u32 c = cand[i];
          u32 p = gallop(l, pos[j], end[j], c);
          pos[j] = p;
          if (p == end[j] || l[p] != c) alive &= ~(1u << (i - lo));
        }
      }
    }
    for (u64 i = lo; i < hi; i++) flags[i] = alive >> (i - lo) & 1;
  }
}

// isect_probe: one thread per candidate of list 0, flagged when member
// finds it in every other list (member(meta of list j, candidate)).
template <class Member>
__device__ void isect_probe(const u32* data, const u64* meta, u64 m, u32* flags, Member member) {
  const u32* cand = data + meta[0];
  u64 n = meta[1];
  for (u64 i = (u64)blockIdx.x * TILE + threadIdx.x; i < n; i += (u64)gridDim.x * TILE) {
    u32 c = cand[i];
    bool in = true;
    for (u64 j = 1; j < m && in; j++) in = member(meta + j * ISECT_META, c);
    flags[i] = in ? 1 : 0;
  }
}

// isect_hash: each candidate scans its bucket in every other list.
extern "C" __global__ void __launch_bounds__(TILE)
    isect_hash(const u32* data, const u32* hstart, const u64* meta, u64 m, u32* flags) {
  isect_probe(data, meta, m, flags, [&](const u64* mj, u32 c) {
    const u32* l = data + mj[0];
    const u32* starts = hstart + mj[2];
    u64 b = c >> mj[4];
    if (b >= mj[3]) return false;
    u32 k = starts[b], e = starts[b + 1];
    while (k < e && l[k] < c) k++;
    return k < e && l[k] == c;
  });
}

// isect_bitmap: one bit test per candidate and other list.
extern "C" __global__ void __launch_bounds__(TILE)
    isect_bitmap(const u32* data, const u64* bits, const u64* meta, u64 m, u32* flags) {
  isect_probe(data, meta, m, flags, [&](const u64* mj, u32 c) {
    u64 w = c >> 6;
    return w < mj[6] && (bits[mj[5] + w] >> (c & 63) & 1);
  });
}

// isect_count counts the set flags of each tile of the *countp candidates.
extern "C" __global__ void __launch_bounds__(TILE)
    isect_count(const u32* flags, const u32* countp, u32* tileCounts) {
  u32 n = *countp;
  for (u32 t = blockIdx.x; t < tiles_of(n); t += gridDim.x) {
    u64 i = (u64)t * TILE + threadIdx.x;
    u32 cnt = __syncthreads_count(i < n && flags[i] != 0);
    if (threadIdx.x == 0) tileCounts[t] = cnt;
  }
}

// isect_scatter writes the flagged candidates, in order, from each tile's
// offset on.
extern "C" __global__ void __launch_bounds__(TILE)
    isect_scatter(const u32* data, const u64* meta, const u32* flags, const u32* countp, const u32* tileOffsets,
                  u32* out) {
  const u32* cand = data + meta[0];
  u32 n = *countp;
  for (u32 t = blockIdx.x; t < tiles_of(n); t += gridDim.x) {
    u64 i = (u64)t * TILE + threadIdx.x;
    bool keep = i < n && flags[i] != 0;
    u32 total;
    u32 r = tileOffsets[t] + block_scan(keep ? 1 : 0, &total);
    if (keep) out[r] = cand[i];
  }
}
