// Package query turns query text into analyzed terms and answers ranked
// queries over an index: the Engine interface, the bounded top-k heap, and
// the engines themselves, from the exhaustive term-at-a-time reference
// scorer to the pruning document-at-a-time ones.
//
// Modes: "and" scores the documents that hold every term, "or" those that
// hold any, and "andor" runs AND and falls back to OR when AND finds fewer
// than k documents. Duplicate query terms are merged (a term counts once).
// A term the index does not hold makes an AND query empty and is ignored by
// OR.
//
// Scores are BM25 (package index/bm25): a document's score is the float32
// sum of its term scores, added in query-term order starting from zero, on
// every engine, so engines agree bit for bit. Results are ordered by score
// descending, then docid ascending.
//
// Engines are registered by name (registry.go), after database/sql's
// drivers: Register adds a Driver (what the engine needs: a GPU, a cache;
// and how to open it), Engines lists the names, Open and New make an
// engine by name, and an unknown name is an error listing the known ones.
// The CPU engines register themselves (engines.go; docs/queries.md has
// their measured speed):
//
//	exhaustive      term-at-a-time over whole lists into dense
//	                accumulators: the reference every other engine is
//	                tested against
//	daat            DAAT AND (and.go): the shortest list drives, the
//	                others follow with NextGEQ, decoding only the blocks
//	                landed in, frequencies decoded only for candidates;
//	                once the heap is full a candidate is scored list by
//	                list and dropped when its scores and the bounds left
//	                cannot enter; exhaustive DAAT OR (or.go)
//	maxscore        DAAT AND; MaxScore OR (maxscore.go): a candidate
//	                at a time, or a window of docids at a time where
//	                the essential lists are long; where the best-bound
//	                list is short, its documents first (phased.go)
//	wand            DAAT AND; WAND OR (wand.go)
//	bmw             block-max DAAT AND (and.go); Block-Max WAND OR (bmw.go)
//	bitmap          roaring bitmaps per term, built lazily and kept in an
//	                LRU cache bounded in bytes (Options.CacheBytes),
//	                intersected or unioned, then the survivors scored
//	                through cursors (bitmap.go)
//	bitmap-nocache  the same without the cache: every query builds its
//	                bitmaps
//	cpu             DAAT AND and MaxScore OR, the fastest measured on real
//	                collections (BMW wins on the synthetic ones)
//
// The GPU engine, "gpu", needs a GPU. Package gpu imports query, so query
// cannot name it: package query/gpuengine registers it, and a program that
// serves it imports that package for its side effect, as it would a
// database/sql driver. Without a GPU or a CUDA build, opening it fails
// with an error that wraps ErrNoGPU; schedule.OpenGPUs opens it on each of
// several devices. "auto" is no engine of the registry: it is the
// server's CPU/GPU scheduler (package schedule), built over the engines
// the registry makes.
//
// Stats.Algorithm names what answered; for AND+OR that fell back to OR it
// is "and+maxscore" and the like, and the statistics add up over both passes.
//
// Safe pruning. The DAAT engines add a document's term scores in query
// order (not cursor order) and break ties as TopK does, so they return the
// exhaustive scorer's top k bit for bit. A bound on a document's score is
// summed in float64 from the float32 bounds the index stores (list maxima,
// block maxima, real term scores) and multiplied by 1 + n*2^-22 for n terms
// before it is compared, which covers the rounding of the float32 sum that
// makes the real score (less than (n-1)*2^-24 relative). A document is
// skipped only when that bound is at most the threshold, the worst score in
// a full heap: documents are visited in docid order, so every kept hit has
// a smaller docid, and a document that only ties the worst score ranks
// below it and would not enter. Until the heap is full nothing is pruned.
//
// Decisions:
//   - The engines take *index.Cursor, not an interface: the cursor's
//     accessors are small and inlined, which an interface call would
//     prevent in the innermost loops. The cursor already has the block-max
//     methods the pruning engines need (MaxScore, BlockMaxScore,
//     BlockLastDocID and ShallowNextGEQ).
//   - Block-Max WAND is lazy: lists that a pruning step passes over are not
//     moved (and their blocks not decoded) until a candidate needs them; a
//     floor docid below which everything is settled stands in for their
//     position. A candidate is settled by moving its lagging lists to it
//     shortest first, stopping as soon as the real scores found and the
//     block maxima left rule it out.
//   - The bitmap baseline builds a term's bitmap by decoding its whole
//     list; two queries that miss the same term at once both build it.
//     Its cache bound counts roaring's own size estimate.
//   - Engines check the context when a search starts and then every
//     checkEvery (16384) steps of their main loop (a step is a candidate
//     document, a skip, a decoded block read in place or a window of
//     MaxScore's), so a cancelled search returns ctx.Err() after at most
//     that much more work.
package query
