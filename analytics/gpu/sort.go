package gpu

import (
	"math/bits"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/internal/cuda"
)

// The radix sort's and the scan's shapes (SORT_BITS, SORT_TILE,
// SORT_BUCKETS and SCAN_BLOCK in kernels/analytics.cu).
const (
	sortBits    = 8
	sortBuckets = 1 << sortBits
	sortTile    = 2048
	scanBlock   = 8192
)

// pairs is n (key, payload) pairs on the device, in k and p, with k2 and
// p2 the radix sort's other buffers and counts and sums its scratch.
type pairs struct {
	n, ntiles    int
	k, p, k2, p2 *cuda.Buffer
	counts, sums *cuda.Buffer
}

// newPairs returns scratch buffers for n pairs and their sort; its scan
// scratch also serves a scan of n+1 values.
func (a *Corpus) newPairs(n int) (*pairs, error) {
	pr := &pairs{n: n, ntiles: (n + sortTile - 1) / sortTile}
	scans := max(sortBuckets*pr.ntiles, n+1)
	for _, u := range []struct {
		dst  **cuda.Buffer
		name string
		size int64
	}{
		{&pr.k, "pairs.k", 8 * int64(n)}, {&pr.p, "pairs.p", 8 * int64(n)},
		{&pr.k2, "pairs.k2", 8 * int64(n)}, {&pr.p2, "pairs.p2", 8 * int64(n)},
		{&pr.counts, "pairs.counts", 4 * int64(sortBuckets*pr.ntiles)},
		{&pr.sums, "pairs.sums", 4 * int64((scans+scanBlock-1)/scanBlock)},
	} {
		var err error
		if *u.dst, err = a.scratch(u.name, u.size); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// swap makes k2 and p2 the pairs.
func (pr *pairs) swap() { pr.k, pr.k2, pr.p, pr.p2 = pr.k2, pr.k, pr.p2, pr.p }

// sortPairs sorts the pairs by key, stably, keys being below 2^keyBits:
// a pass per SORT_BITS digit, from the lowest. It only launches (inside a
// timed section).
func (a *Corpus) sortPairs(pr *pairs, keyBits int) error {
	for shift := 0; shift < keyBits; shift += sortBits {
		if err := launchSortHistogram(a, gridOf(pr.ntiles, 32), analyticsCTA, ptr(pr.k), uint64(pr.n), uint64(shift),
			uint64(pr.ntiles), ptr(pr.counts)); err != nil {
			return err
		}
		if err := a.scan(pr.counts, sortBuckets*pr.ntiles, pr.sums); err != nil {
			return err
		}
		if err := launchSortScatter(a, gridOf(pr.ntiles, 32), analyticsCTA, ptr(pr.k), ptr(pr.p), uint64(pr.n), uint64(shift),
			uint64(pr.ntiles), ptr(pr.counts), ptr(pr.k2), ptr(pr.p2)); err != nil {
			return err
		}
		pr.swap()
	}
	return nil
}

// scan replaces the first m uint32 of v by their exclusive prefix sums,
// with sums (m/SCAN_BLOCK rounded up) as scratch. It only launches.
func (a *Corpus) scan(v *cuda.Buffer, m int, sums *cuda.Buffer) error {
	blocks := (m + scanBlock - 1) / scanBlock
	if err := launchScanSums(a, blocks, analyticsCTA, ptr(v), uint64(m), ptr(sums)); err != nil {
		return err
	}
	if err := launchScanBlocks(a, 1, analyticsCTA, ptr(sums), uint64(blocks)); err != nil {
		return err
	}
	return launchScanApply(a, blocks, analyticsCTA, ptr(v), uint64(m), ptr(sums))
}

// assemble turns a word task's compacted rows into its result on the
// device: pairs keyed so that one stable sort puts them in the result's
// order (invindex: by word, documents staying in order; rankedinv: by
// word, then count descending; termvector: by document, then word), rows
// cut from the sorted keys, payloads split into columns and values. Only
// the result is copied back. It returns the device time too.
func (a *Corpus) assemble(task analytics.Task, rows *deviceRows) (*analytics.Matrix, time.Duration, error) {
	files, words := len(rows.start)-1, len(a.c.Dict)
	wordBits := bits.Len(uint(words))
	mode, keyBits, shift := 0, wordBits, 0
	switch task {
	case analytics.RankedInvertedIndex:
		mode, keyBits, shift = 1, 32+wordBits, 32
	case analytics.TermVector:
		mode, keyBits = 2, bits.Len(uint(files))+wordBits
	}
	start := rows.start
	if task != analytics.TermVector {
		start = nil // rows by word, their starts read back
	}
	if rows.n == 0 {
		return allocMatrix(start, words, 0)(), 0, nil
	}
	matrix := allocMatrix(start, words, rows.n)
	pr, err := a.newPairs(rows.n)
	if err != nil {
		return nil, 0, err
	}
	var starts *cuda.Buffer
	if task != analytics.TermVector {
		if starts, err = a.scratch("assemble.starts", 8*int64(words+1)); err != nil {
			return nil, 0, err
		}
	}
	n := uint64(rows.n)
	t, err := a.d.Timed(func() error {
		if err := launchTadocPairs(a, gridOf(files, 32), analyticsCTA, ptr(rows.startBuf), uint64(files), ptr(rows.keys),
			ptr(rows.vals), uint64(mode), uint64(wordBits), ptr(pr.k), ptr(pr.p)); err != nil {
			return err
		}
		if err := a.sortPairs(pr, keyBits); err != nil {
			return err
		}
		if starts != nil {
			if err := launchTadocCsrStarts(a, gridOf(rows.n, 1), analyticsCTA, ptr(pr.k), n, uint64(shift), uint64(words),
				ptr(starts)); err != nil {
				return err
			}
		}
		return launchTadocSplit(a, gridOf(rows.n, 1), analyticsCTA, ptr(pr.p), n, ptr(rows.keys), ptr(rows.vals))
	})
	if err != nil {
		return nil, 0, err
	}
	m := matrix()
	if err := a.readRows(m, rows, starts); err != nil {
		return nil, 0, err
	}
	return m, t, nil
}

// allocMatrix allocates a result's n-entry columns and, when start is nil,
// its row starts for rows rows, on other cores, and returns a function that
// waits for them. Zeroing the tens of megabytes of a large result takes
// milliseconds, which the device's sort then hides.
func allocMatrix(start []int, rows, n int) func() *analytics.Matrix {
	m := &analytics.Matrix{Start: start}
	var wg sync.WaitGroup
	wg.Go(func() { m.Col = make([]uint32, n) })
	wg.Go(func() { m.Val = make([]uint32, n) })
	if start == nil {
		wg.Go(func() { m.Start = make([]int, rows+1) })
	}
	return func() *analytics.Matrix {
		wg.Wait()
		return m
	}
}

// readRows copies the split columns and values (in rows.keys and
// rows.vals) into m, and the row starts when starts holds them.
func (a *Corpus) readRows(m *analytics.Matrix, rows *deviceRows, starts *cuda.Buffer) error {
	if err := cuda.Read(rows.keys, m.Col); err != nil {
		return err
	}
	if err := cuda.Read(rows.vals, m.Val); err != nil {
		return err
	}
	if starts == nil {
		return nil
	}
	s := make([]uint64, len(m.Start))
	if err := cuda.Read(starts, s); err != nil {
		return err
	}
	for i, v := range s {
		m.Start[i] = int(v)
	}
	return nil
}

// assembleSeqs turns seqcount's compacted rows into its result on the
// device: pairs keyed by sequence and sorted, sequences numbered in key
// order (heads, a scan, ids), the pairs keyed by document and sorted again,
// so that each document's row lists its sequence ids in order. Only the
// rows and the distinct sequences are copied back; the host unpacks the
// sequences. It returns the device time too.
func (a *Corpus) assembleSeqs(l *analytics.SeqLayout, rows *deviceRows) (*analytics.Matrix, []uint32, time.Duration, error) {
	files := len(rows.start) - 1
	if rows.n == 0 {
		return allocMatrix(rows.start, files, 0)(), nil, 0, nil
	}
	matrix := allocMatrix(rows.start, files, rows.n)
	pr, err := a.newPairs(rows.n)
	if err != nil {
		return nil, nil, 0, err
	}
	heads, err := a.scratch("seq.heads", 4*int64(rows.n+1))
	if err != nil {
		return nil, nil, 0, err
	}
	distinct, err := a.scratch("seq.distinct", 8*int64(rows.n))
	if err != nil {
		return nil, nil, 0, err
	}
	n := uint64(rows.n)
	t, err := a.d.Timed(func() error {
		if err := launchTadocSeqPairs(a, gridOf(files, 32), analyticsCTA, ptr(rows.startBuf), uint64(files), ptr(rows.keys),
			ptr(rows.vals), ptr(pr.k), ptr(pr.p)); err != nil {
			return err
		}
		if err := a.sortPairs(pr, l.Bits*l.SeqLen); err != nil {
			return err
		}
		if err := launchTadocSeqHeads(a, gridOf(rows.n+1, 1), analyticsCTA, ptr(pr.k), n, ptr(heads)); err != nil {
			return err
		}
		if err := a.scan(heads, rows.n+1, pr.sums); err != nil {
			return err
		}
		if err := launchTadocSeqIds(a, gridOf(rows.n, 1), analyticsCTA, ptr(pr.k), ptr(pr.p), n, ptr(heads),
			ptr(distinct), ptr(pr.k2), ptr(pr.p2)); err != nil {
			return err
		}
		pr.swap()
		if err := a.sortPairs(pr, bits.Len(uint(files))); err != nil {
			return err
		}
		return launchTadocSplit(a, gridOf(rows.n, 1), analyticsCTA, ptr(pr.p), n, ptr(rows.keys), ptr(rows.vals))
	})
	if err != nil {
		return nil, nil, 0, err
	}
	m := matrix()
	if err := a.readRows(m, rows, nil); err != nil {
		return nil, nil, 0, err
	}
	count, err := heads.Uint32At(rows.n)
	if err != nil {
		return nil, nil, 0, err
	}
	keys := make([]uint64, count)
	if err := cuda.Read(distinct, keys); err != nil {
		return nil, nil, 0, err
	}
	return m, l.Unpack(keys), t, nil
}
