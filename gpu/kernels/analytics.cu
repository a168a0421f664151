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
// the same way.
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
						u32 *err) {
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
		for (u64 q = table_off[c]; q < table_off[c + 1]; q++) {
			u32 key = keys[q];
			if (key != EMPTY) {
				put_private(k, v, cap, key, vals[q], err);
			}
		}
	}
}

// tadoc_tables_groups: one warp per rule of rules[0..n), lanes striding
// over each child's table slots.
extern "C" __global__ void tadoc_tables_groups(const u32 *rules, u64 n, const u32 *rule_start,
					       const u32 *body, const u64 *table_off, u32 *keys, u32 *vals,
					       u32 *err) {
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
		for (u64 q = table_off[c] + lane; q < table_off[c + 1]; q += WARP) {
			u32 key = keys[q];
			if (key != EMPTY) {
				put_shared(k, v, cap, key, vals[q], err);
			}
		}
	}
}

// tadoc_files: one CTA per chunk; chunk i is root symbols
// chunks[3i+1] .. chunks[3i+2) of document chunks[3i], merged into the
// document's table in the file pool.
extern "C" __global__ void tadoc_files(const u32 *chunks, u64 nchunks, const u32 *root,
				       const u64 *table_off, const u32 *keys, const u32 *vals,
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
		for (u64 q = table_off[c] + threadIdx.x; q < table_off[c + 1]; q += blockDim.x) {
			u32 key = keys[q];
			if (key != EMPTY) {
				put_shared(k, v, cap, key, vals[q], err);
			}
		}
	}
}
