// analytics.cu: G-TADOC text analytics on a grammar-compressed corpus
// (package analytics): word counts top-down, per-document word tables
// bottom-up, without decompressing.
//
// Grammar. A symbol is a word id, or RULE|r for rule r. Rule r's body is
// body[rule_start[r] .. rule_start[r+1]); the root's run for document f is
// root[file_start[f] .. file_start[f+1]).
//
// Scheduling. The host groups the rules by level (analytics.Layout): a
// rule's children are all on lower levels, so one launch per level finds
// every dependency done, which replaces G-TADOC's per-rule ready masks and
// their repeated scans. Within a level a rule gets one thread, or a warp
// when its work (body plus the child table slots it merges) passes
// analytics.ThreadWork: G-TADOC's "group of threads for long rules".
//
// Word count, top-down: weight[r] counts rule r's expansions. The root's
// symbols seed the weights and counts (tadoc_root_weights); then levels
// from the top down add each rule's final weight to its children's
// weights and to its words' counts. Counts are a dense array over word ids,
// updated with atomics.
//
// Tables, bottom-up: every rule and every document has a hash table (keys
// word ids, values counts) in a pool, its slots a power of two at least
// twice a bound on its distinct words, so that it never fills. Levels from
// the bottom up fill each rule's table with its words and its children's
// tables; a thread owns its rule's table and writes it without atomics, a
// warp shares it through compare-and-swap inserts (open addressing, linear
// probing). Documents' root runs are cut into chunks of at most CHUNK
// symbols, one CTA per chunk, and chunks of one document share its table
// the same way. Once a rule's table is complete (at the end of its level's
// launch) its entries are compacted to the front of its slots and used[r]
// counts them, so that parents and documents read entries, not the empty
// slots of a half-empty hash table, however often the rule is referenced.
//
// Safety: every probe sequence stops after the table's size; an insert
// that finds no slot (a wrong bound) sets *err and is dropped, never
// writes out of bounds. Kernel parameters are 8 bytes wide (pointers and
// unsigned long long): gorgonia.org/cu copies 8 bytes per argument.

typedef unsigned int u32;
typedef unsigned long long u64;

#define RULE 0x80000000u
#define EMPTY 0xffffffffu
#define WARP 32

__device__ __forceinline__ u64 home_slot(u32 k, u64 mask) {
	return (u64)(k * 2654435761u) & mask;
}

// put_private adds v to key k in a table only this thread writes.
__device__ void put_private(u32 *keys, u32 *vals, u64 cap, u32 k, u32 v, u32 *err) {
	u64 mask = cap - 1;
	u64 i = home_slot(k, mask);
	for (u64 p = 0; p < cap; p++, i = (i + 1) & mask) {
		u32 c = keys[i];
		if (c == k) {
			vals[i] += v;
			return;
		}
		if (c == EMPTY) {
			keys[i] = k;
			vals[i] = v;
			return;
		}
	}
	atomicExch(err, 1u);
}

// put_shared adds v to key k in a table several threads write.
__device__ void put_shared(u32 *keys, u32 *vals, u64 cap, u32 k, u32 v, u32 *err) {
	u64 mask = cap - 1;
	u64 i = home_slot(k, mask);
	for (u64 p = 0; p < cap; p++, i = (i + 1) & mask) {
		u32 c = ((volatile u32 *)keys)[i];
		if (c == EMPTY) {
			c = atomicCAS(&keys[i], EMPTY, k);
			if (c == EMPTY) {
				c = k;
			}
		}
		if (c == k) {
			atomicAdd(&vals[i], v);
			return;
		}
	}
	atomicExch(err, 1u);
}

// tadoc_root_weights: one thread per root symbol.
extern "C" __global__ void tadoc_root_weights(const u32 *root, u64 n, u64 *weight, u64 *counts) {
	u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
	if (i >= n) {
		return;
	}
	u32 s = root[i];
	if (s & RULE) {
		atomicAdd(&weight[s & ~RULE], 1ull);
	} else {
		atomicAdd(&counts[s], 1ull);
	}
}

// tadoc_topdown_threads: one thread per rule of rules[0..n).
extern "C" __global__ void tadoc_topdown_threads(const u32 *rules, u64 n, const u32 *rule_start,
						 const u32 *body, u64 *weight, u64 *counts) {
	u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
	if (i >= n) {
		return;
	}
	u32 r = rules[i];
	u64 w = weight[r];
	if (w == 0) {
		return;
	}
	for (u32 j = rule_start[r]; j < rule_start[r + 1]; j++) {
		u32 s = body[j];
		if (s & RULE) {
			atomicAdd(&weight[s & ~RULE], w);
		} else {
			atomicAdd(&counts[s], w);
		}
	}
}

// tadoc_topdown_groups: one warp per rule of rules[0..n), lanes striding
// over the body.
extern "C" __global__ void tadoc_topdown_groups(const u32 *rules, u64 n, const u32 *rule_start,
						const u32 *body, u64 *weight, u64 *counts) {
	u64 g = (blockIdx.x * (u64)blockDim.x + threadIdx.x) / WARP;
	u32 lane = threadIdx.x % WARP;
	if (g >= n) {
		return;
	}
	u32 r = rules[g];
	u64 w = weight[r];
	if (w == 0) {
		return;
	}
	for (u32 j = rule_start[r] + lane; j < rule_start[r + 1]; j += WARP) {
		u32 s = body[j];
		if (s & RULE) {
			atomicAdd(&weight[s & ~RULE], w);
		} else {
			atomicAdd(&counts[s], w);
		}
	}
}

// tadoc_tables_threads: one thread per rule of rules[0..n) fills the
// rule's table with its words and its children's tables.
extern "C" __global__ void tadoc_tables_threads(const u32 *rules, u64 n, const u32 *rule_start,
						const u32 *body, const u64 *table_off, u32 *keys, u32 *vals,
						u32 *used, u32 *err) {
	u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
	if (i >= n) {
		return;
	}
	u32 r = rules[i];
	u64 off = table_off[r], cap = table_off[r + 1] - off;
	if (cap == 0) {
		return;
	}
	u32 *k = keys + off, *v = vals + off;
	for (u32 j = rule_start[r]; j < rule_start[r + 1]; j++) {
		u32 s = body[j];
		if (!(s & RULE)) {
			put_private(k, v, cap, s, 1, err);
			continue;
		}
		u32 c = s & ~RULE;
		for (u64 q = table_off[c], e = q + used[c]; q < e; q++) {
			put_private(k, v, cap, keys[q], vals[q], err);
		}
	}
	// Compaction: the entries move to the front, in slot order.
	u32 e = 0;
	for (u64 q = 0; q < cap; q++) {
		if (k[q] != EMPTY) {
			k[e] = k[q];
			v[e] = v[q];
			e++;
		}
	}
	used[r] = e;
}

// tadoc_tables_groups: one warp per rule of rules[0..n), lanes striding
// over each child's table slots.
extern "C" __global__ void tadoc_tables_groups(const u32 *rules, u64 n, const u32 *rule_start,
					       const u32 *body, const u64 *table_off, u32 *keys, u32 *vals,
					       u32 *used, u32 *err) {
	u64 g = (blockIdx.x * (u64)blockDim.x + threadIdx.x) / WARP;
	u32 lane = threadIdx.x % WARP;
	if (g >= n) {
		return;
	}
	u32 r = rules[g];
	u64 off = table_off[r], cap = table_off[r + 1] - off;
	if (cap == 0) {
		return;
	}
	u32 *k = keys + off, *v = vals + off;
	u32 start = rule_start[r], end = rule_start[r + 1];
	for (u32 j = start; j < end; j++) {
		u32 s = body[j];
		if (!(s & RULE)) {
			if ((j - start) % WARP == lane) {
				put_shared(k, v, cap, s, 1, err);
			}
			continue;
		}
		u32 c = s & ~RULE;
		for (u64 q = table_off[c] + lane, e = table_off[c] + used[c]; q < e; q += WARP) {
			put_shared(k, v, cap, keys[q], vals[q], err);
		}
	}
	// Compaction by the warp, 32 slots a round in slot order: each lane
	// reads its slot before any lane writes, and writes land at or before
	// the round's slots, so nothing unread is overwritten.
	__syncwarp();
	u32 e = 0;
	for (u64 base = 0; base < cap; base += WARP) {
		u64 q = base + lane;
		u32 key = q < cap ? k[q] : EMPTY, val = q < cap ? v[q] : 0;
		u32 ballot = __ballot_sync(0xffffffffu, key != EMPTY);
		if (key != EMPTY) {
			u32 at = e + __popc(ballot & ((1u << lane) - 1));
			k[at] = key;
			v[at] = val;
		}
		e += __popc(ballot);
		__syncwarp();
	}
	if (lane == 0) {
		used[r] = e;
	}
}

// tadoc_files: one CTA per chunk; chunk i is root symbols
// chunks[3i+1] .. chunks[3i+2) of document chunks[3i], merged into the
// document's table in the file pool.
extern "C" __global__ void tadoc_files(const u32 *chunks, u64 nchunks, const u32 *root,
				       const u64 *table_off, const u32 *keys, const u32 *vals, const u32 *used,
				       const u64 *file_off, u32 *fkeys, u32 *fvals, u32 *err) {
	u64 i = blockIdx.x;
	if (i >= nchunks) {
		return;
	}
	u32 f = chunks[3 * i], start = chunks[3 * i + 1], end = chunks[3 * i + 2];
	u64 off = file_off[f], cap = file_off[f + 1] - off;
	if (cap == 0) {
		return;
	}
	u32 *k = fkeys + off, *v = fvals + off;
	for (u32 j = start; j < end; j++) {
		u32 s = root[j];
		if (!(s & RULE)) {
			if ((j - start) % blockDim.x == threadIdx.x) {
				put_shared(k, v, cap, s, 1, err);
			}
			continue;
		}
		u32 c = s & ~RULE;
		for (u64 q = table_off[c] + threadIdx.x, e = table_off[c] + used[c]; q < e; q += blockDim.x) {
			put_shared(k, v, cap, keys[q], vals[q], err);
		}
	}
}

// Compaction of the document pool. The pool is cut into chunks of
// COMPACT_CHUNK slots, one CTA each: tadoc_chunk_counts counts each chunk's
// filled slots, the host turns the counts into each chunk's first output
// position (base), and tadoc_compact writes the filled slots' keys and
// values, in pool order, to out_keys/out_vals at base + their rank among
// the chunk's filled slots. tadoc_row_starts gives each document the output
// position of its first slot, so that documents become the rows of a CSR
// matrix. A chunk's slots are read COMPACT_CHUNK / blockDim.x at a time,
// ranked with warp ballots and one shared total per warp.

#define COMPACT_CHUNK 2048u
#define MAX_WARPS 32

static __device__ __forceinline__ u64 min64(u64 a, u64 b) { return a < b ? a : b; }

extern "C" __global__ void tadoc_chunk_counts(const u32 *fkeys, u64 slots, u32 *counts) {
	__shared__ u32 total;
	if (threadIdx.x == 0) {
		total = 0;
	}
	__syncthreads();
	u64 lo = (u64)blockIdx.x * COMPACT_CHUNK, hi = min64(lo + COMPACT_CHUNK, slots);
	u32 c = 0;
	for (u64 q = lo + threadIdx.x; q < hi; q += blockDim.x) {
		c += fkeys[q] != EMPTY;
	}
	atomicAdd(&total, c);
	__syncthreads();
	if (threadIdx.x == 0) {
		counts[blockIdx.x] = total;
	}
}

extern "C" __global__ void tadoc_compact(const u32 *fkeys, const u32 *fvals, u64 slots, const u64 *base,
					 u32 *out_keys, u32 *out_vals) {
	__shared__ u32 warp_total[MAX_WARPS];
	u32 lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = blockDim.x / WARP;
	u64 lo = (u64)blockIdx.x * COMPACT_CHUNK, hi = min64(lo + COMPACT_CHUNK, slots);
	u64 at = base[blockIdx.x];
	for (u64 first = lo; first < hi; first += blockDim.x) {
		u64 q = first + threadIdx.x;
		bool filled = q < hi && fkeys[q] != EMPTY;
		u32 ballot = __ballot_sync(0xffffffffu, filled);
		if (lane == 0) {
			warp_total[warp] = __popc(ballot);
		}
		__syncthreads();
		u32 before = __popc(ballot & ((1u << lane) - 1)), round = 0;
		for (u32 w = 0; w < warps; w++) {
			before += w < warp ? warp_total[w] : 0;
			round += warp_total[w];
		}
		if (filled) {
			out_keys[at + before] = fkeys[q];
			out_vals[at + before] = fvals[q];
		}
		at += round;
		__syncthreads();
	}
}

// tadoc_row_starts: one thread per document f: row_start[f] is the output
// position of the first filled slot at or after file_off[f] (the count of
// filled slots before it), from its chunk's base and the slots of the
// chunk before it.
extern "C" __global__ void tadoc_row_starts(const u64 *file_off, u64 nfiles, const u32 *fkeys, const u64 *base,
					    u64 *row_start) {
	u64 f = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	if (f > nfiles) {
		return;
	}
	u64 q = file_off[f], c = q / COMPACT_CHUNK, at = base[c];
	for (u64 p = c * COMPACT_CHUNK; p < q; p++) {
		at += fkeys[p] != EMPTY;
	}
	row_start[f] = at;
}
