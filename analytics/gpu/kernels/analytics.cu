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
// their repeated scans. Within a level a rule gets one thread, a warp
// when its work (body plus the child table slots it merges) passes
// analytics.ThreadWork, or a CTA past analytics.WarpWork: G-TADOC's
// "group of threads for long rules". One launch runs a whole level, the
// CTA rules first (each_rule, kernels _level).
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
// Sequences, bottom-up: the same tables with 64-bit keys, each an l-word
// window packed into one integer. A rule's own windows (those of its
// expansion inside no single child) come from a stream of its body in
// which each child stands for its head and tail buffers (its first and
// last l-1 words, computed on the host), so that every window of the text
// is counted once, by the lowest rule that holds it whole (SeqItems).
// A warp's lanes, or a document chunk's threads, each take the windows
// that start in their symbols, reading ahead at most l-1 words.
//
// Safety: every probe sequence stops after the table's size; an insert
// that finds no slot (a wrong bound) sets *err and is dropped, never
// writes out of bounds. Kernel parameters are 8 bytes wide (pointers and
// unsigned long long): gorgonia.org/cu copies 8 bytes per argument.

typedef unsigned int u32;
typedef unsigned long long u64;

#define RULE 0x80000000u
#define WARP 32

// empty_key is the key of an empty slot: all ones (no word id and no
// packed sequence is).
template <class K> __device__ __forceinline__ K empty_key() { return (K)~(K)0; }

__device__ __forceinline__ u64 home_slot(u32 k, u64 mask) { return (u64)(k * 2654435761u) & mask; }

__device__ __forceinline__ u64 home_slot(u64 k, u64 mask) {
	k ^= k >> 31;
	k *= 0x9e3779b97f4a7c15ull;
	return (k ^ (k >> 29)) & mask;
}

// put_private adds v to key k in a table only this thread writes.
template <class K> __device__ void put_private(K *keys, u32 *vals, u64 cap, K k, u32 v, u32 *err) {
	u64 mask = cap - 1;
	u64 i = home_slot(k, mask);
	for (u64 p = 0; p < cap; p++, i = (i + 1) & mask) {
		K c = keys[i];
		if (c == k) {
			vals[i] += v;
			return;
		}
		if (c == empty_key<K>()) {
			keys[i] = k;
			vals[i] = v;
			return;
		}
	}
	atomicExch(err, 1u);
}

// put_shared adds v to key k in a table several threads write.
template <class K> __device__ void put_shared(K *keys, u32 *vals, u64 cap, K k, u32 v, u32 *err) {
	u64 mask = cap - 1;
	u64 i = home_slot(k, mask);
	for (u64 p = 0; p < cap; p++, i = (i + 1) & mask) {
		K c = ((volatile K *)keys)[i];
		if (c == empty_key<K>()) {
			c = atomicCAS(&keys[i], empty_key<K>(), k);
			if (c == empty_key<K>()) {
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

#define MAX_WARPS 32

// warp_scan returns the inclusive prefix of x over the warp's lanes.
__device__ u32 warp_scan(u32 x) {
	u32 lane = threadIdx.x % WARP;
	for (u32 d = 1; d < WARP; d <<= 1) {
		u32 y = __shfl_up_sync(0xffffffffu, x, d);
		if (lane >= d) {
			x += y;
		}
	}
	return x;
}

// cta_scan returns the exclusive prefix of x over the CTA's threads (256)
// and sets *total to their sum, for every thread.
__device__ u32 cta_scan(u32 x, u32 *total) {
	__shared__ u32 warp_sum[MAX_WARPS];
	u32 lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = blockDim.x / WARP;
	u32 in = warp_scan(x);
	if (lane == WARP - 1) {
		warp_sum[warp] = in;
	}
	__syncthreads();
	u32 before = 0, all = 0;
	for (u32 w = 0; w < warps; w++) {
		before += w < warp ? warp_sum[w] : 0;
		all += warp_sum[w];
	}
	__syncthreads();
	*total = all;
	return before + in - x;
}

// each_rule runs one level of analytics.Layout in one launch: rules
// [0..nt) get a thread each, rules [nt..nt+ng) a warp each and rules
// [nt+ng..nt+ng+nb) a CTA each. The CTAs of the CTA rules come first, so
// that the largest rules start first, then the warps' CTAs, then the
// threads' (the host's grid: nb + ceil(32 ng / CTA) + ceil(nt / CTA)).
// f(r, lane, stride) is called with stride 1, WARP or blockDim.x by every
// lane of its warp or thread of its CTA, so it may synchronize at that
// scope; the branches are uniform over a CTA.
template <class F>
__device__ void each_rule(const u32 *rules, u64 nt, u64 ng, u64 nb, F f) {
	u64 b = blockIdx.x;
	if (b < nb) {
		f(rules[nt + ng + b], threadIdx.x, blockDim.x);
		return;
	}
	b -= nb;
	u64 gblocks = (ng * WARP + blockDim.x - 1) / blockDim.x;
	if (b < gblocks) {
		u64 g = (b * blockDim.x + threadIdx.x) / WARP;
		if (g < ng) {
			f(rules[nt + g], threadIdx.x % WARP, WARP);
		}
		return;
	}
	u64 i = (b - gblocks) * blockDim.x + threadIdx.x;
	if (i < nt) {
		f(rules[i], 0, 1);
	}
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

// topdown_rule adds rule r's final weight to its children's weights and
// to its words' counts, lane of stride.
__device__ void topdown_rule(u32 r, u32 lane, u32 stride, const u32 *rule_start, const u32 *body, u64 *weight,
			     u64 *counts) {
	u64 w = weight[r];
	if (w == 0) {
		return;
	}
	for (u32 j = rule_start[r] + lane; j < rule_start[r + 1]; j += stride) {
		u32 s = body[j];
		if (s & RULE) {
			atomicAdd(&weight[s & ~RULE], w);
		} else {
			atomicAdd(&counts[s], w);
		}
	}
}

// tadoc_topdown_level: one level of rules (each_rule).
extern "C" __global__ void tadoc_topdown_level(const u32 *rules, u64 nt, u64 ng, u64 nb, const u32 *rule_start,
					       const u32 *body, u64 *weight, u64 *counts) {
	each_rule(rules, nt, ng, nb,
		  [&](u32 r, u32 lane, u32 stride) { topdown_rule(r, lane, stride, rule_start, body, weight, counts); });
}

// Own items. A rule's or a document's table holds its children's tables
// and the items its own symbols add, which an Own policy enumerates:
// own(syms, from, to, end, lane, stride, put) calls put(key, count) for
// the items that start at symbols from+lane, from+lane+stride, ... below
// to, reading at most up to end. WordItems: the words among the symbols.
struct WordItems {
	template <class Put>
	__device__ void operator()(const u32 *syms, u32 from, u32 to, u32 end, u32 lane, u32 stride, Put &put) const {
		for (u32 j = from + lane; j < to; j += stride) {
			if (!(syms[j] & RULE)) {
				put(syms[j], 1u);
			}
		}
	}
};

#define MAX_SEQ 16

// SeqItems: the l-word windows the symbols own (package analytics's
// ownSeqs, one window per start word), as keys of l word ids of bits bits
// each, first word highest. The stream replaces a child rule by its whole
// expansion when that is at most 2(l-1) words (head, then the tail's last
// words), else by its head and its tail; a window is owned unless it lies
// in one child's part (a window across the gap between a head and a tail
// of l-1 words each always does). head/tail hold l-1 words per rule,
// hlen/tlen how many are set.
struct SeqItems {
	const u64 *lens;
	const u32 *head, *tail, *hlen, *tlen;
	u32 l, bits;

	template <class Put>
	__device__ void operator()(const u32 *syms, u32 from, u32 to, u32 end, u32 lane, u32 stride, Put &put) const {
		if (stride == 1) {
			windows(syms, from, to, end, put);
			return;
		}
		for (u32 j = from + lane; j < to; j += stride) {
			windows(syms, j, j + 1, end, put);
		}
	}

	// windows streams syms[from..end) and puts the owned windows whose
	// first word comes from a symbol below to; it stops at the first
	// window that does not.
	template <class Put> __device__ void windows(const u32 *syms, u32 from, u32 to, u32 end, Put &put) const {
		u32 origin[MAX_SEQ]; // of the last l words, word n at n % l
		u64 key = 0, mask = bits * l >= 64 ? ~0ull : (1ull << (bits * l)) - 1;
		u32 n = 0, w = l - 1; // words pushed
		// push adds word x of symbol o; false: stop.
		auto push = [&](u32 x, u32 o) -> bool {
			key = (key << bits | x) & mask;
			origin[n % l] = o;
			n++;
			if (n < l) {
				return true;
			}
			u32 first = origin[n % l];
			if (first >= to) {
				return false;
			}
			if (first == o && (syms[o] & RULE)) {
				return true;
			}
			put(key, 1u);
			return true;
		};
		for (u32 i = from; i < end; i++) {
			u32 s = syms[i];
			if (!(s & RULE)) {
				if (!push(s, i)) {
					return;
				}
				continue;
			}
			u32 c = s & ~RULE, hl = hlen[c], tl = tlen[c];
			const u32 *h = head + (u64)c * w, *t = tail + (u64)c * w;
			for (u32 k = 0; k < hl; k++) {
				if (!push(h[k], i)) {
					return;
				}
			}
			u64 len = lens[c];
			for (u32 k = len > 2 * (u64)w ? 0 : tl - (u32)(len - hl); k < tl; k++) {
				if (!push(t[k], i)) {
					return;
				}
			}
		}
	}
};

// fill_warp merges the child tables of syms[from..to) with a warp, 32
// symbols a round: the round's children's entries are numbered through a
// warp scan of their counts and dealt out to the lanes evenly, each lane
// finding the child of its entry by a binary search over the lanes'
// prefix sums. A long body of small children keeps every lane busy (one
// symbol at a time, a lane per entry, would leave most of them idle).
template <class K, class Put>
__device__ void fill_warp(const u32 *syms, u32 from, u32 to, u32 lane, const u64 *table_off, const K *keys,
			  const u32 *vals, const u32 *used, Put &put) {
	for (u32 base = from; base < to; base += WARP) {
		u32 j = base + lane, n = 0;
		u64 off = 0;
		if (j < to && (syms[j] & RULE)) {
			u32 c = syms[j] & ~RULE;
			n = used[c];
			off = table_off[c];
		}
		u32 incl = warp_scan(n); // inclusive prefix of n over the lanes
		u32 total = __shfl_sync(0xffffffffu, incl, WARP - 1);
		for (u32 first = 0; first < total; first += WARP) {
			u32 e = first + lane, src = 0; // src: the lanes whose entries all come before e
			for (u32 step = WARP / 2; step > 0; step >>= 1) {
				if (__shfl_sync(0xffffffffu, incl, src + step - 1) <= e) {
					src += step;
				}
			}
			u64 o = __shfl_sync(0xffffffffu, off, src);
			u32 before = __shfl_sync(0xffffffffu, incl - n, src);
			if (e < total) {
				u64 q = o + (e - before);
				put(keys[q], vals[q]);
			}
		}
	}
}

// fill puts the own items of syms[from..to) and the entries of the
// tables of the child rules among them, lane of stride (1: a thread alone;
// WARP: a warp, see fill_warp; else a CTA, its threads striding over each
// child's entries in turn).
template <class K, class Own, class Put>
__device__ void fill(const Own &own, const u32 *syms, u32 from, u32 to, u32 end, u32 lane, u32 stride,
		     const u64 *table_off, const K *keys, const u32 *vals, const u32 *used, Put &put) {
	own(syms, from, to, end, lane, stride, put);
	if (stride == WARP) {
		fill_warp(syms, from, to, lane, table_off, keys, vals, used, put);
		return;
	}
	for (u32 j = from; j < to; j++) {
		u32 s = syms[j];
		if (!(s & RULE)) {
			continue;
		}
		u32 c = s & ~RULE;
		for (u64 q = table_off[c] + lane, e = table_off[c] + used[c]; q < e; q += stride) {
			put(keys[q], vals[q]);
		}
	}
}

// rule_table_thread fills rule r's table alone, then moves its entries to
// the front, in slot order, and counts them in used[r].
template <class K, class Own>
__device__ void rule_table_thread(const Own &own, u32 r, const u32 *rule_start, const u32 *body,
				  const u64 *table_off, K *keys, u32 *vals, u32 *used, u32 *err) {
	u64 off = table_off[r], cap = table_off[r + 1] - off;
	if (cap == 0) {
		return;
	}
	K *k = keys + off;
	u32 *v = vals + off;
	auto put = [&](K key, u32 val) { put_private(k, v, cap, key, val, err); };
	fill(own, body, rule_start[r], rule_start[r + 1], rule_start[r + 1], 0, 1, table_off, keys, vals, used, put);
	u32 e = 0;
	for (u64 q = 0; q < cap; q++) {
		if (k[q] != empty_key<K>()) {
			k[e] = k[q];
			v[e] = v[q];
			e++;
		}
	}
	used[r] = e;
}

// rule_table_warp fills rule r's table with a warp, lanes striding over
// its symbols and each child's entries, then compacts it 32 slots a round
// in slot order: each lane reads its slot before any lane writes, and
// writes land at or before the round's slots, so nothing unread is
// overwritten.
template <class K, class Own>
__device__ void rule_table_warp(const Own &own, u32 r, u32 lane, const u32 *rule_start, const u32 *body,
				const u64 *table_off, K *keys, u32 *vals, u32 *used, u32 *err) {
	u64 off = table_off[r], cap = table_off[r + 1] - off;
	if (cap == 0) {
		return;
	}
	K *k = keys + off;
	u32 *v = vals + off;
	auto put = [&](K key, u32 val) { put_shared(k, v, cap, key, val, err); };
	fill(own, body, rule_start[r], rule_start[r + 1], rule_start[r + 1], lane, WARP, table_off, keys, vals, used, put);
	__syncwarp();
	u32 e = 0;
	for (u64 base = 0; base < cap; base += WARP) {
		u64 q = base + lane;
		K key = q < cap ? k[q] : empty_key<K>();
		u32 val = q < cap ? v[q] : 0;
		u32 ballot = __ballot_sync(0xffffffffu, key != empty_key<K>());
		if (key != empty_key<K>()) {
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

// rule_table_block fills rule r's table with a CTA: its threads stride
// over the symbols' own items, each warp merges the children of a slice of
// the body (fill_warp), then the CTA compacts the table 256 slots a round
// in slot order (every thread reads its slot before any writes, and a slot
// moves only towards the front).
template <class K, class Own>
__device__ void rule_table_block(const Own &own, u32 r, const u32 *rule_start, const u32 *body, const u64 *table_off,
				 K *keys, u32 *vals, u32 *used, u32 *err) {
	u64 off = table_off[r], cap = table_off[r + 1] - off;
	if (cap == 0) {
		return;
	}
	K *k = keys + off;
	u32 *v = vals + off;
	auto put = [&](K key, u32 val) { put_shared(k, v, cap, key, val, err); };
	u32 from = rule_start[r], to = rule_start[r + 1], warps = blockDim.x / WARP, warp = threadIdx.x / WARP;
	own(body, from, to, to, threadIdx.x, blockDim.x, put);
	u32 per = (to - from + warps - 1) / warps;
	u32 lo = from + warp * per < to ? from + warp * per : to, hi = lo + per < to ? lo + per : to;
	fill_warp(body, lo, hi, threadIdx.x % WARP, table_off, keys, vals, used, put);
	__syncthreads();
	u32 e = 0;
	for (u64 base = 0; base < cap; base += blockDim.x) {
		u64 q = base + threadIdx.x;
		K key = q < cap ? k[q] : empty_key<K>();
		u32 val = q < cap ? v[q] : 0, round;
		u32 at = e + cta_scan(key != empty_key<K>(), &round);
		if (key != empty_key<K>()) {
			k[at] = key;
			v[at] = val;
		}
		e += round;
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		used[r] = e;
	}
}

// rule_table fills rule r's table with a thread (stride 1), a warp
// (stride WARP, lane its lane) or a CTA (else), for each_rule.
template <class K, class Own>
__device__ void rule_table(const Own &own, u32 r, u32 lane, u32 stride, const u32 *rule_start, const u32 *body,
			   const u64 *table_off, K *keys, u32 *vals, u32 *used, u32 *err) {
	if (stride == 1) {
		rule_table_thread(own, r, rule_start, body, table_off, keys, vals, used, err);
	} else if (stride == WARP) {
		rule_table_warp(own, r, lane, rule_start, body, table_off, keys, vals, used, err);
	} else {
		rule_table_block(own, r, rule_start, body, table_off, keys, vals, used, err);
	}
}

// file_table: one CTA per chunk; chunk i is root symbols chunks[3i+1] ..
// chunks[3i+2) of document chunks[3i] (whose run ends at end), merged into
// the document's table in the file pool.
template <class K, class Own>
__device__ void file_table(const Own &own, const u32 *chunks, u64 nchunks, const u32 *root, const u32 *file_start,
			   const u64 *table_off, const K *keys, const u32 *vals, const u32 *used, const u64 *file_off,
			   K *fkeys, u32 *fvals, u32 *err) {
	u64 i = blockIdx.x;
	if (i >= nchunks) {
		return;
	}
	u32 f = chunks[3 * i], start = chunks[3 * i + 1], end = chunks[3 * i + 2];
	u64 off = file_off[f], cap = file_off[f + 1] - off;
	if (cap == 0) {
		return;
	}
	K *k = fkeys + off;
	u32 *v = fvals + off;
	auto put = [&](K key, u32 val) { put_shared(k, v, cap, key, val, err); };
	fill(own, root, start, end, file_start[f + 1], threadIdx.x, blockDim.x, table_off, keys, vals, used, put);
}

// Word tables.

// tadoc_tables_level: one level of rule tables (each_rule).
extern "C" __global__ void tadoc_tables_level(const u32 *rules, u64 nt, u64 ng, u64 nb, const u32 *rule_start,
					      const u32 *body, const u64 *table_off, u32 *keys, u32 *vals, u32 *used,
					      u32 *err) {
	each_rule(rules, nt, ng, nb, [&](u32 r, u32 lane, u32 stride) {
		rule_table(WordItems{}, r, lane, stride, rule_start, body, table_off, keys, vals, used, err);
	});
}

// tadoc_files: the documents' word tables.
extern "C" __global__ void tadoc_files(const u32 *chunks, u64 nchunks, const u32 *root, const u32 *file_start,
				       const u64 *table_off, const u32 *keys, const u32 *vals, const u32 *used,
				       const u64 *file_off, u32 *fkeys, u32 *fvals, u32 *err) {
	file_table(WordItems{}, chunks, nchunks, root, file_start, table_off, keys, vals, used, file_off, fkeys, fvals,
		   err);
}

// Sequence tables: keys are packed sequences (SeqItems); lens, head, tail,
// hlen, tlen, l and bits describe them.

// tadoc_seq_tables_level: one level of rule sequence tables (each_rule).
extern "C" __global__ void tadoc_seq_tables_level(const u32 *rules, u64 nt, u64 ng, u64 nb, const u32 *rule_start,
						  const u32 *body, const u64 *lens, const u32 *head, const u32 *tail,
						  const u32 *hlen, const u32 *tlen, u64 l, u64 bits, const u64 *table_off,
						  u64 *keys, u32 *vals, u32 *used, u32 *err) {
	SeqItems own{lens, head, tail, hlen, tlen, (u32)l, (u32)bits};
	each_rule(rules, nt, ng, nb, [&](u32 r, u32 lane, u32 stride) {
		rule_table(own, r, lane, stride, rule_start, body, table_off, keys, vals, used, err);
	});
}

extern "C" __global__ void tadoc_seq_files(const u32 *chunks, u64 nchunks, const u32 *root, const u32 *file_start,
					   const u64 *lens, const u32 *head, const u32 *tail, const u32 *hlen,
					   const u32 *tlen, u64 l, u64 bits, const u64 *table_off, const u64 *keys,
					   const u32 *vals, const u32 *used, const u64 *file_off, u64 *fkeys,
					   u32 *fvals, u32 *err) {
	SeqItems own{lens, head, tail, hlen, tlen, (u32)l, (u32)bits};
	file_table(own, chunks, nchunks, root, file_start, table_off, keys, vals, used, file_off, fkeys, fvals, err);
}

// Per-document tables top-down, for corpora of few documents (the
// paper's choice for few long files): weight[r * nfiles + f] counts rule
// r's expansions in document f. The documents' root chunks seed the
// weights and put their own items (tadoc_td_files, a CTA per chunk); then
// levels from the top down put each rule's own items into the tables of
// the documents it occurs in, times its weight there, and add its weights
// to its children's (tadoc_td_level). No rule tables
// are built. Word tables are dense (document f's slot for word w is
// f * words + w, so that compaction leaves them sorted), sequence tables
// are the bottom-up engine's document pool.

// DenseTables: document f's count of word k at f * words + k.
struct DenseTables {
	u32 *keys, *vals;
	u64 words;
	__device__ void put(u64 f, u32 k, u32 v) const {
		u64 i = f * words + k;
		atomicAdd(&vals[i], v);
		keys[i] = k;
	}
};

// HashTables: document f's hash table is slots file_off[f] ..
// file_off[f+1] of keys and vals.
struct HashTables {
	const u64 *file_off;
	u64 *keys;
	u32 *vals, *err;
	__device__ void put(u64 f, u64 k, u32 v) const {
		u64 off = file_off[f];
		put_shared(keys + off, vals + off, file_off[f + 1] - off, k, v, err);
	}
};

template <class Own, class Tables>
__device__ void td_files(const Own &own, const Tables &t, const u32 *chunks, u64 nchunks, const u32 *root,
			 const u32 *file_start, u32 *weight, u64 nfiles) {
	u64 i = blockIdx.x;
	if (i >= nchunks) {
		return;
	}
	u32 f = chunks[3 * i], start = chunks[3 * i + 1], end = chunks[3 * i + 2];
	auto put = [&](auto k, u32 v) { t.put(f, k, v); };
	own(root, start, end, file_start[f + 1], threadIdx.x, blockDim.x, put);
	for (u32 j = start + threadIdx.x; j < end; j += blockDim.x) {
		if (root[j] & RULE) {
			atomicAdd(&weight[(u64)(root[j] & ~RULE) * nfiles + f], 1u);
		}
	}
}

// td_rule: rule r, whose weights are final (its parents are on higher
// levels), lane of stride.
template <class Own, class Tables>
__device__ void td_rule(const Own &own, const Tables &t, u32 r, u32 lane, u32 stride, const u32 *rule_start,
			const u32 *body, u32 *weight, u64 nfiles) {
	u32 from = rule_start[r], to = rule_start[r + 1];
	for (u64 f = 0; f < nfiles; f++) {
		u32 w = weight[(u64)r * nfiles + f];
		if (w == 0) {
			continue;
		}
		auto put = [&](auto k, u32 v) { t.put(f, k, v * w); };
		own(body, from, to, to, lane, stride, put);
		for (u32 j = from + lane; j < to; j += stride) {
			if (body[j] & RULE) {
				atomicAdd(&weight[(u64)(body[j] & ~RULE) * nfiles + f], w);
			}
		}
	}
}

extern "C" __global__ void tadoc_td_files(const u32 *chunks, u64 nchunks, const u32 *root, const u32 *file_start,
					  u32 *weight, u64 nfiles, u32 *keys, u32 *vals, u64 words) {
	td_files(WordItems{}, DenseTables{keys, vals, words}, chunks, nchunks, root, file_start, weight, nfiles);
}

extern "C" __global__ void tadoc_td_level(const u32 *rules, u64 nt, u64 ng, u64 nb, const u32 *rule_start,
					  const u32 *body, u32 *weight, u64 nfiles, u32 *keys, u32 *vals, u64 words) {
	DenseTables t{keys, vals, words};
	each_rule(rules, nt, ng, nb, [&](u32 r, u32 lane, u32 stride) {
		td_rule(WordItems{}, t, r, lane, stride, rule_start, body, weight, nfiles);
	});
}

extern "C" __global__ void tadoc_seq_td_files(const u32 *chunks, u64 nchunks, const u32 *root, const u32 *file_start,
					      const u64 *lens, const u32 *head, const u32 *tail, const u32 *hlen,
					      const u32 *tlen, u64 l, u64 bits, u32 *weight, u64 nfiles,
					      const u64 *file_off, u64 *keys, u32 *vals, u32 *err) {
	SeqItems own{lens, head, tail, hlen, tlen, (u32)l, (u32)bits};
	td_files(own, HashTables{file_off, keys, vals, err}, chunks, nchunks, root, file_start, weight, nfiles);
}

extern "C" __global__ void tadoc_seq_td_level(const u32 *rules, u64 nt, u64 ng, u64 nb, const u32 *rule_start,
					      const u32 *body, const u64 *lens, const u32 *head, const u32 *tail,
					      const u32 *hlen, const u32 *tlen, u64 l, u64 bits, u32 *weight, u64 nfiles,
					      const u64 *file_off, u64 *keys, u32 *vals, u32 *err) {
	SeqItems own{lens, head, tail, hlen, tlen, (u32)l, (u32)bits};
	HashTables t{file_off, keys, vals, err};
	each_rule(rules, nt, ng, nb,
		  [&](u32 r, u32 lane, u32 stride) { td_rule(own, t, r, lane, stride, rule_start, body, weight, nfiles); });
}

// Compaction of the document pool. The pool is cut into chunks of
// COMPACT_CHUNK slots, one CTA each: tadoc_chunk_counts counts each chunk's
// filled slots, the host turns the counts into each chunk's first output
// position (base), and tadoc_compact writes the filled slots' keys and
// values, in pool order, to out_keys/out_vals at base + their rank among
// the chunk's filled slots. tadoc_row_starts gives each document the output
// position of its first slot, so that documents become the rows of a CSR
// matrix. A chunk's slots are read COMPACT_CHUNK / blockDim.x at a time,
// ranked with a CTA scan of their filled flags. The tadoc_seq_
// kernels do the same for a pool of sequence keys.

#define COMPACT_CHUNK 2048u

static __device__ __forceinline__ u64 min64(u64 a, u64 b) { return a < b ? a : b; }

template <class K> __device__ void chunk_counts(const K *fkeys, u64 slots, u32 *counts) {
	__shared__ u32 total;
	if (threadIdx.x == 0) {
		total = 0;
	}
	__syncthreads();
	u64 lo = (u64)blockIdx.x * COMPACT_CHUNK, hi = min64(lo + COMPACT_CHUNK, slots);
	u32 c = 0;
	for (u64 q = lo + threadIdx.x; q < hi; q += blockDim.x) {
		c += fkeys[q] != empty_key<K>();
	}
	atomicAdd(&total, c);
	__syncthreads();
	if (threadIdx.x == 0) {
		counts[blockIdx.x] = total;
	}
}

template <class K>
__device__ void compact(const K *fkeys, const u32 *fvals, u64 slots, const u64 *base, K *out_keys, u32 *out_vals) {
	u64 lo = (u64)blockIdx.x * COMPACT_CHUNK, hi = min64(lo + COMPACT_CHUNK, slots);
	u64 at = base[blockIdx.x];
	for (u64 first = lo; first < hi; first += blockDim.x) {
		u64 q = first + threadIdx.x;
		bool filled = q < hi && fkeys[q] != empty_key<K>();
		u32 round, before = cta_scan(filled, &round);
		if (filled) {
			out_keys[at + before] = fkeys[q];
			out_vals[at + before] = fvals[q];
		}
		at += round;
	}
}

// row_starts: one thread per document f: row_start[f] is the output
// position of the first filled slot at or after file_off[f] (the count of
// filled slots before it), from its chunk's base and the slots of the
// chunk before it.
template <class K>
__device__ void row_starts(const u64 *file_off, u64 nfiles, const K *fkeys, const u64 *base, u64 *row_start) {
	u64 f = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	if (f > nfiles) {
		return;
	}
	u64 q = file_off[f], c = q / COMPACT_CHUNK, at = base[c];
	for (u64 p = c * COMPACT_CHUNK; p < q; p++) {
		at += fkeys[p] != empty_key<K>();
	}
	row_start[f] = at;
}

extern "C" __global__ void tadoc_chunk_counts(const u32 *fkeys, u64 slots, u32 *counts) {
	chunk_counts(fkeys, slots, counts);
}

extern "C" __global__ void tadoc_compact(const u32 *fkeys, const u32 *fvals, u64 slots, const u64 *base,
					 u32 *out_keys, u32 *out_vals) {
	compact(fkeys, fvals, slots, base, out_keys, out_vals);
}

extern "C" __global__ void tadoc_row_starts(const u64 *file_off, u64 nfiles, const u32 *fkeys, const u64 *base,
					    u64 *row_start) {
	row_starts(file_off, nfiles, fkeys, base, row_start);
}

extern "C" __global__ void tadoc_seq_chunk_counts(const u64 *fkeys, u64 slots, u32 *counts) {
	chunk_counts(fkeys, slots, counts);
}

extern "C" __global__ void tadoc_seq_compact(const u64 *fkeys, const u32 *fvals, u64 slots, const u64 *base,
					     u64 *out_keys, u32 *out_vals) {
	compact(fkeys, fvals, slots, base, out_keys, out_vals);
}

extern "C" __global__ void tadoc_seq_row_starts(const u64 *file_off, u64 nfiles, const u64 *fkeys, const u64 *base,
						u64 *row_start) {
	row_starts(file_off, nfiles, fkeys, base, row_start);
}

// Sorting and assembly on the device. A task's result leaves the device
// as the rows of a CSR matrix already in their final order, so that the
// host only copies it: the compacted (document, key, count) entries become
// (sort key, payload) pairs (tadoc_pairs, tadoc_seq_pairs), a stable
// least-significant-digit radix sort orders them (SORT_BITS a pass:
// sort_histogram, an exclusive scan of the per-tile counts, sort_scatter),
// and small kernels cut rows (tadoc_csr_starts) and split payloads
// (tadoc_split). seqcount numbers its sequences in between (tadoc_seq_heads,
// a scan, tadoc_seq_ids) and sorts once more, by document.

#define SORT_BITS 8
#define SORT_BUCKETS (1u << SORT_BITS)
#define SORT_TILE 2048u // entries per warp
#define SORT_WARPS 8    // warps per CTA of 256 threads

// sort_histogram: one warp per tile of SORT_TILE entries counts the
// tile's digits (bits shift .. shift+SORT_BITS of each key) into
// counts[digit * ntiles + tile], so that an exclusive scan of counts gives
// every (digit, tile) its first output position.
extern "C" __global__ void sort_histogram(const u64 *keys, u64 n, u64 shift, u64 ntiles, u32 *counts) {
	__shared__ u32 hist[SORT_WARPS][SORT_BUCKETS];
	u32 warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
	u64 tile = (u64)blockIdx.x * SORT_WARPS + warp;
	if (tile >= ntiles) {
		return;
	}
	for (u32 d = lane; d < SORT_BUCKETS; d += WARP) {
		hist[warp][d] = 0;
	}
	__syncwarp();
	u64 lo = tile * SORT_TILE, hi = min64(lo + SORT_TILE, n);
	for (u64 i = lo + lane; i < hi; i += WARP) {
		atomicAdd(&hist[warp][(keys[i] >> shift) & (SORT_BUCKETS - 1)], 1u);
	}
	__syncwarp();
	for (u32 d = lane; d < SORT_BUCKETS; d += WARP) {
		counts[(u64)d * ntiles + tile] = hist[warp][d];
	}
}

// sort_scatter: one warp per tile writes each entry to its digit's next
// position, 32 entries a round in order: lanes with the same digit
// (__match_any_sync) take consecutive positions by lane, so the sort is
// stable.
extern "C" __global__ void sort_scatter(const u64 *keys, const u64 *pays, u64 n, u64 shift, u64 ntiles,
					const u32 *offsets, u64 *out_keys, u64 *out_pays) {
	__shared__ u32 next[SORT_WARPS][SORT_BUCKETS];
	u32 warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
	u64 tile = (u64)blockIdx.x * SORT_WARPS + warp;
	if (tile >= ntiles) {
		return;
	}
	for (u32 d = lane; d < SORT_BUCKETS; d += WARP) {
		next[warp][d] = offsets[(u64)d * ntiles + tile];
	}
	__syncwarp();
	u64 lo = tile * SORT_TILE, hi = min64(lo + SORT_TILE, n);
	for (u64 base = lo; base < hi; base += WARP) {
		u64 i = base + lane;
		bool in = i < hi;
		u64 k = in ? keys[i] : 0;
		u32 d = in ? (u32)((k >> shift) & (SORT_BUCKETS - 1)) : SORT_BUCKETS;
		u32 peers = __match_any_sync(0xffffffffu, d);
		u32 pos = in ? next[warp][d] + __popc(peers & ((1u << lane) - 1)) : 0;
		__syncwarp();
		if (in && (peers >> lane) == 1) { // the group's last lane
			next[warp][d] += __popc(peers);
		}
		__syncwarp();
		if (in) {
			out_keys[pos] = k;
			out_pays[pos] = pays[i];
		}
	}
}

// Exclusive scan of n u32 values in place, in three launches: scan_sums
// (one CTA per block of SCAN_BLOCK values writes its total), scan_blocks
// (one CTA scans the totals) and scan_apply (one CTA per block scans it
// from its total's prefix). Totals fit in 32 bits (n entries at most).

#define SCAN_BLOCK 8192u

extern "C" __global__ void scan_sums(const u32 *v, u64 n, u32 *sums) {
	u64 lo = (u64)blockIdx.x * SCAN_BLOCK, hi = min64(lo + SCAN_BLOCK, n);
	u32 s = 0, total;
	for (u64 i = lo + threadIdx.x; i < hi; i += blockDim.x) {
		s += v[i];
	}
	cta_scan(s, &total);
	if (threadIdx.x == 0) {
		sums[blockIdx.x] = total;
	}
}

extern "C" __global__ void scan_blocks(u32 *sums, u64 nblocks) {
	u32 base = 0;
	for (u64 first = 0; first < nblocks; first += blockDim.x) {
		u64 i = first + threadIdx.x;
		u32 x = i < nblocks ? sums[i] : 0, total;
		u32 p = cta_scan(x, &total);
		if (i < nblocks) {
			sums[i] = base + p;
		}
		base += total;
	}
}

extern "C" __global__ void scan_apply(u32 *v, u64 n, const u32 *sums) {
	u64 lo = (u64)blockIdx.x * SCAN_BLOCK, hi = min64(lo + SCAN_BLOCK, n);
	u32 base = sums[blockIdx.x];
	for (u64 first = lo; first < hi; first += blockDim.x) {
		u64 i = first + threadIdx.x;
		u32 x = i < hi ? v[i] : 0, total;
		u32 p = cta_scan(x, &total);
		if (i < hi) {
			v[i] = base + p;
		}
		base += total;
	}
}

// Pairs from the compacted rows: one warp per document f, whose entries
// are row_start[f] .. row_start[f+1] of keys/vals. mode 0 (invindex):
// key word, payload f:count; 1 (rankedinv): key word:~count, payload
// f:count; 2 (termvector): key f:word (word_bits bits for the word),
// payload word:count. tadoc_seq_pairs: key the sequence, payload f:count.
template <class K, class Pair>
__device__ void pairs(const u64 *row_start, u64 nfiles, const K *keys, const u32 *vals, u64 *out_keys, u64 *out_pays,
		      Pair pair) {
	u64 f = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
	if (f >= nfiles) {
		return;
	}
	for (u64 i = row_start[f] + threadIdx.x % WARP; i < row_start[f + 1]; i += WARP) {
		pair(f, keys[i], vals[i], &out_keys[i], &out_pays[i]);
	}
}

extern "C" __global__ void tadoc_pairs(const u64 *row_start, u64 nfiles, const u32 *keys, const u32 *vals, u64 mode,
				       u64 word_bits, u64 *out_keys, u64 *out_pays) {
	pairs(row_start, nfiles, keys, vals, out_keys, out_pays, [&](u64 f, u32 w, u32 c, u64 *k, u64 *p) {
		switch (mode) {
		case 0:
			*k = w;
			*p = f << 32 | c;
			break;
		case 1:
			*k = (u64)w << 32 | (u32)~c;
			*p = f << 32 | c;
			break;
		default:
			*k = f << word_bits | w;
			*p = (u64)w << 32 | c;
		}
	});
}

extern "C" __global__ void tadoc_seq_pairs(const u64 *row_start, u64 nfiles, const u64 *keys, const u32 *vals,
					   u64 *out_keys, u64 *out_pays) {
	pairs(row_start, nfiles, keys, vals, out_keys, out_pays, [&](u64 f, u64 s, u32 c, u64 *k, u64 *p) {
		*k = s;
		*p = f << 32 | c;
	});
}

// tadoc_csr_starts: keys sorted, row r of the result holds the entries
// whose key >> shift is r: one thread per entry i sets start[r] = i for
// the rows from the previous entry's (exclusive) to its own (inclusive),
// and the last entry closes the rows after it; start has rows+1 slots.
extern "C" __global__ void tadoc_csr_starts(const u64 *keys, u64 n, u64 shift, u64 rows, u64 *start) {
	u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) {
		return;
	}
	u64 r = keys[i] >> shift, from = i == 0 ? 0 : (keys[i - 1] >> shift) + 1;
	for (u64 q = from; q <= r; q++) {
		start[q] = i;
	}
	if (i == n - 1) {
		for (u64 q = r + 1; q <= rows; q++) {
			start[q] = n;
		}
	}
}

// tadoc_split: col[i] = pays[i] >> 32, val[i] = the low half.
extern "C" __global__ void tadoc_split(const u64 *pays, u64 n, u32 *col, u32 *val) {
	u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		col[i] = (u32)(pays[i] >> 32);
		val[i] = (u32)pays[i];
	}
}

// tadoc_seq_heads: head[i] = 1 where sorted key i differs from key i-1
// (a new sequence), else 0, for i < n, and head[n] = 0; an exclusive scan
// of head[0..n] then numbers the sequences and counts them in head[n].
extern "C" __global__ void tadoc_seq_heads(const u64 *keys, u64 n, u32 *head) {
	u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i <= n) {
		head[i] = i < n && (i == 0 || keys[i] != keys[i - 1]);
	}
}

// tadoc_seq_ids: keys sorted and before[i] the sequences that start before
// entry i (the exclusive scan of tadoc_seq_heads), entry i's sequence is
// number before[i] - 1, or before[i] when it starts one, whose key goes to
// distinct[id]; the entry is rewritten into out_keys/out_pays as key its
// document, payload id:count, ready to be sorted by document.
extern "C" __global__ void tadoc_seq_ids(const u64 *keys, const u64 *pays, u64 n, const u32 *before,
					 u64 *distinct, u64 *out_keys, u64 *out_pays) {
	u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) {
		return;
	}
	u64 k = keys[i];
	bool head = i == 0 || k != keys[i - 1];
	u64 id = before[i] - (head ? 0 : 1);
	if (head) {
		distinct[id] = k;
	}
	out_keys[i] = pays[i] >> 32;
	out_pays[i] = id << 32 | (u32)pays[i];
}

// Text: the uncompressed baseline that starts from text (analyze --plain
// --text), the words separated by ASCII white space and a newline after
// each document (analytics.Corpus.Text), padded with spaces to whole
// TEXT_CHUNKs. text_counts counts each CTA's words and newlines, two scans
// give every CTA its first word and document, and text_words writes the
// word ids of the plain root. It stages its chunk and the TEXT_SPILL bytes
// after it in shared memory, lists where the chunk's words start, and then
// looks the words up a thread each: the FNV-1a hash of the word's bytes,
// then the dictionary's table (open addressing, text_lookup; the
// dictionary's bytes and offsets beside it). Each newline
// is checked against the corpus's document starts. A word not in the
// dictionary, or a document of another length, sets *err. CTAs are
// TEXT_CTA threads.

#define TEXT_PER 32u                      // bytes per thread
#define TEXT_CTA 256u                     // threads per CTA
#define TEXT_CHUNK (TEXT_PER * TEXT_CTA)  // bytes per CTA
#define TEXT_SPILL 256u                   // dictionary words are shorter (gpu.textSpill)

__device__ __forceinline__ bool is_space(u32 c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// text_load returns the thread's TEXT_PER bytes at lo, four to a word.
__device__ __forceinline__ void text_load(const unsigned char *text, u64 lo, u32 w[8]) {
	uint4 a = *(const uint4 *)(text + lo), b = *(const uint4 *)(text + lo + 16);
	w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w, w[4] = b.x, w[5] = b.y, w[6] = b.z, w[7] = b.w;
}

// text_tally returns the words starting in the thread's bytes (the byte
// before them, prev, decides the first) and its newlines, as
// words << 16 | newlines (at most 16 and 32, a CTA's at most 8192 each).
__device__ __forceinline__ u32 text_tally(const u32 w[8], u32 prev) {
	u32 words = 0, lines = 0;
#pragma unroll
	for (u32 j = 0; j < TEXT_PER; j++) {
		u32 c = (w[j / 4] >> (8 * (j % 4))) & 0xff;
		words += !is_space(c) && is_space(prev);
		lines += c == '\n';
		prev = c;
	}
	return words << 16 | lines;
}

__device__ __forceinline__ u32 text_prev(const unsigned char *text, u64 lo) { return lo == 0 ? ' ' : text[lo - 1]; }

// text_lookup returns the id of the word of len bytes at sh[at..], whose
// FNV-1a hash is h, or ~0 if the dictionary lacks it. A slot holds
// hash << 32 | id (~0 when empty), so that only a slot of the same hash
// costs a comparison of the bytes.
__device__ u32 text_lookup(const unsigned char *sh, u32 at, u32 len, u32 h, const unsigned char *dict,
			   const u32 *dict_off, const u64 *slots, u32 mask) {
	for (u32 p = 0, i = h & mask; p <= mask; p++, i = (i + 1) & mask) {
		u64 s = slots[i];
		if (s == ~0ull) {
			break;
		}
		if ((u32)(s >> 32) != h) {
			continue;
		}
		u32 id = (u32)s, o = dict_off[id];
		if (dict_off[id + 1] - o != len) {
			continue;
		}
		u32 k = 0;
		while (k < len && dict[o + k] == sh[at + k]) {
			k++;
		}
		if (k == len) {
			return id;
		}
	}
	return ~0u;
}

// text_counts: one CTA per chunk; words[c] and lines[c] get chunk c's
// counts.
extern "C" __global__ void text_counts(const unsigned char *text, u32 *words, u32 *lines) {
	u64 lo = ((u64)blockIdx.x * TEXT_CTA + threadIdx.x) * TEXT_PER;
	u32 w[8], total;
	text_load(text, lo, w);
	cta_scan(text_tally(w, text_prev(text, lo)), &total);
	if (threadIdx.x == 0) {
		words[blockIdx.x] = total >> 16;
		lines[blockIdx.x] = total & 0xffff;
	}
}

// text_words: one CTA per chunk of the n bytes of text, words and lines
// now the chunks' first word and document (exclusive scans of
// text_counts's).
extern "C" __global__ void __launch_bounds__(TEXT_CTA, 4)
text_words(const unsigned char *text, u64 n, const u32 *words, const u32 *lines, const unsigned char *dict,
	   const u32 *dict_off, const u64 *slots, u64 nslots,
				      const u32 *file_start, u64 nfiles, u32 *root, u64 nroot, u32 *err) {
	__shared__ __align__(16) unsigned char sh[TEXT_CHUNK + TEXT_SPILL];
	__shared__ unsigned short starts[TEXT_CHUNK / 2];
	u64 base = (u64)blockIdx.x * TEXT_CHUNK, lo = base + threadIdx.x * TEXT_PER;
	u32 w[8], total;
	text_load(text, lo, w);
	*(uint4 *)(sh + threadIdx.x * TEXT_PER) = make_uint4(w[0], w[1], w[2], w[3]);
	*(uint4 *)(sh + threadIdx.x * TEXT_PER + 16) = make_uint4(w[4], w[5], w[6], w[7]);
	if (threadIdx.x < TEXT_SPILL / 16) {
		u64 at = base + TEXT_CHUNK + 16 * threadIdx.x;
		uint4 v = at < n ? *(const uint4 *)(text + at) : make_uint4(0x20202020u, 0x20202020u, 0x20202020u, 0x20202020u);
		*(uint4 *)(sh + TEXT_CHUNK + 16 * threadIdx.x) = v;
	}
	u32 prev = text_prev(text, lo);
	u32 before = cta_scan(text_tally(w, prev), &total);
	u32 word = before >> 16;
	u64 line = lines[blockIdx.x] + (before & 0xffff);
	u64 first = words[blockIdx.x];
#pragma unroll
	for (u32 j = 0; j < TEXT_PER; j++) {
		u32 c = (w[j / 4] >> (8 * (j % 4))) & 0xff;
		if (!is_space(c) && is_space(prev)) {
			starts[word++] = threadIdx.x * TEXT_PER + j;
		} else if (c == '\n') {
			if (line >= nfiles || file_start[line + 1] != first + word) {
				atomicExch(err, 1u);
			}
			line++;
		}
		prev = c;
	}
	__syncthreads();
	u32 nwords = total >> 16;
	for (u32 i = threadIdx.x; i < nwords; i += TEXT_CTA) {
		u32 at = starts[i], end = at, h = 2166136261u;
		for (u32 c; end < TEXT_CHUNK + TEXT_SPILL && !is_space(c = sh[end]); end++) {
			h = (h ^ c) * 16777619u;
		}
		u32 id = end < TEXT_CHUNK + TEXT_SPILL
			     ? text_lookup(sh, at, end - at, h, dict, dict_off, slots, (u32)(nslots - 1))
			     : ~0u;
		if (id == ~0u || first + i >= nroot) {
			atomicExch(err, 1u);
		} else {
			root[first + i] = id;
		}
	}
	// The last CTA has seen every word and newline before its end.
	if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0 &&
	    (first + nwords != nroot || lines[blockIdx.x] + (total & 0xffff) != nfiles)) {
		atomicExch(err, 1u);
	}
}
