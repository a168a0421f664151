package gpu

import (
	"fmt"
	"slices"

	"github.com/gpusearch/gpusearch/index"
)

// DefaultLongListBytes is the size from which a list is long: under a
// memory budget the index does not fit, lists of at least this many bytes
// (docids and frequencies together, as encoded on the device) live in the
// list cache and shorter ones stay resident. A copy of 64 KiB takes about
// 3 us over PCIe 4 (x16), near a copy's fixed cost, so shorter lists would
// stream mostly fixed costs. On a synthetic Gov2-like collection of 5x10^6
// documents the 2,740 lists above it hold 45% of the bytes (those above
// 4 KiB, 73%): a budget below the short lists needs a lower threshold
// (gpu.long_list_kb).
const DefaultLongListBytes = 64 << 10

// cacheOptions configure a query engine's list cache (Options).
type cacheOptions struct {
	policy string
	// bytes is the cache's size; > 0 turns the cache on whatever the
	// budget, 0 sizes it from the budget when the index does not fit.
	bytes int64
	// budget is the device memory the engine may use (0: unbounded).
	budget int64
	// longMin is the size from which a list is long (0: the default).
	longMin int64
}

// scratchShare is the share of a memory budget a cached engine leaves
// for its workspaces' scratch (see workspaces): the cache gets what the
// resident part and this reserve leave.
const scratchShare = 4

// cacheLayout is how a cached engine lays an index out on the device.
// Both columns' data are one arena: the short lists' docid bytes, then
// their frequency bytes, then the cache. A list's blocks are device rows
// whose offsets point into the arena; a long list's rows point into the
// cache where it was last loaded. Since the decoders bound block b by
// offs[b] and offs[b+1], the row after a long list, and the row after
// any list followed by a long one, is a spacer (no values, never
// decoded): each list then owns the offset after its last block, which a
// load rewrites.
type cacheLayout struct {
	rows  []uint32 // per term: its first device row
	long  []int32  // per term: its list's number in the cache, or -1
	terms []int32  // per long list: its term
	first []uint32 // per long list: its first block in the index
	nb    []uint32 // per long list: its blocks
	sizes []int64  // per long list: bytes in the cache (docids, padded to 16, frequencies)
	nrows int
	// Host columns' offsets, by block of the index.
	docOffs, freqOffs   []uint64
	shortDoc, shortFreq int64 // the short lists' bytes
	longBytes           int64
}

// newCacheLayout lays out the lists of ix, whose columns dh and fh are
// as the device takes them.
func newCacheLayout(ix *index.Index, dh, fh *HostColumn, longMin int64) (*cacheLayout, error) {
	if longMin <= 0 {
		longMin = DefaultLongListBytes
	}
	n := ix.NumTerms()
	bs := ix.BlockSize()
	l := &cacheLayout{rows: make([]uint32, n), long: make([]int32, n), docOffs: dh.Offsets, freqOffs: fh.Offsets}
	type span struct{ first, nb int }
	spans := make([]span, n)
	next := 0
	for t := range n {
		ti := ix.Term(t)
		s := span{int(ti.FirstBlock), ti.NumBlocks(bs)}
		if s.first != next {
			return nil, fmt.Errorf("%w: term %d's list starts at block %d, not %d", ErrFormat, t, s.first, next)
		}
		next += s.nb
		spans[t] = s
		db := int64(dh.Offsets[s.first+s.nb] - dh.Offsets[s.first])
		fb := int64(fh.Offsets[s.first+s.nb] - fh.Offsets[s.first])
		l.long[t] = -1
		if db+fb >= longMin {
			l.long[t] = int32(len(l.terms))
			l.terms = append(l.terms, int32(t))
			l.first, l.nb = append(l.first, uint32(s.first)), append(l.nb, uint32(s.nb))
			l.sizes = append(l.sizes, align(db, 16)+fb)
			l.longBytes += db + fb
		} else {
			l.shortDoc += db
			l.shortFreq += fb
		}
	}
	row := 0
	for t, s := range spans {
		l.rows[t] = uint32(row)
		row += s.nb
		if l.long[t] >= 0 || (t+1 < n && l.long[t+1] >= 0) {
			row++ // a spacer
		}
	}
	l.nrows = row
	return l, nil
}

func align(n, a int64) int64 { return (n + a - 1) / a * a }

// termSpan is term t's blocks in ix's columns.
func termSpan(ix *index.Index, t int) (first, nb int) {
	ti := ix.Term(t)
	return int(ti.FirstBlock), ti.NumBlocks(ix.BlockSize())
}

// qcache is a query engine's list cache: the layout, the bookkeeping, the
// long lists in (page-locked, where the backend offers it) host memory,
// and the device arrays a load rewrites.
type qcache struct {
	lay       *cacheLayout
	lc        *listCache
	host      []byte  // the long lists, each as it lies in the cache
	hostOff   []int64 // per long list: its place in host
	freeHost  func() error
	arena     devPtr // both columns' data: short docids, short frequencies, the cache
	cacheBase int64  // the cache's offset in the arena
	docOffs   devPtr // the device rows' offsets, docids
	freqOffs  devPtr // and frequencies
}

// pinner is a backend that can allocate page-locked host memory, from
// which copies to the device run at the link's speed without the driver
// staging them.
type pinner interface {
	pinned(n int64) ([]byte, func() error, error)
}

// residentBytes is the device memory a fully resident upload of dh and
// fh takes, with the skip column and norms.
func residentBytes(ix *index.Index, dh, fh *HostColumn) int64 {
	nb := int64(dh.NumBlocks())
	return int64(len(dh.Data)+len(fh.Data)) + 128 + 2*8*(nb+1) + 3*4*nb + 4*nb + 4*int64(ix.NumDocs())
}

// wantCache reports whether the engine caches long lists: when co asks
// for a size, or when the budget cannot hold the resident index beside
// the scratch reserve.
func wantCache(ix *index.Index, dh, fh *HostColumn, co cacheOptions) bool {
	return co.bytes > 0 || (co.budget > 0 && residentBytes(ix, dh, fh)+co.budget/scratchShare > co.budget)
}

// cacheCapacity is the cache's size: co's, or what the budget leaves after
// the scratch reserve and the resident part of lay.
func cacheCapacity(ix *index.Index, dh, fh *HostColumn, lay *cacheLayout, co cacheOptions) (int64, error) {
	if co.bytes > 0 {
		return co.bytes, nil
	}
	reserve := co.budget / scratchShare
	spacers := int64(lay.nrows - dh.NumBlocks())
	fixed := residentBytes(ix, dh, fh) - int64(len(dh.Data)+len(fh.Data)) + lay.shortDoc + lay.shortFreq + 2*8*spacers + 3*4*spacers
	capacity := co.budget - reserve - fixed
	var largest int64
	for _, s := range lay.sizes {
		largest = max(largest, s)
	}
	if capacity < largest {
		return 0, fmt.Errorf("%w: a budget of %d MiB leaves %d bytes for the list cache after %d resident and a "+
			"%d-byte scratch reserve; the longest list takes %d", ErrOutOfMemory, co.budget>>20, max(capacity, 0), fixed,
			reserve, largest)
	}
	return capacity, nil
}

// uploadCached uploads ix's columns with the long lists in a list cache
// sized by co, allocating with alloc: the short lists and every row's
// offsets, counts, bases and last docid go to the device; the long lists
// to host memory, from where each query's missing ones are copied.
func (c *columns) uploadCached(ix *index.Index, dh, fh *HostColumn, co cacheOptions, alloc func(int64) (devPtr, error)) error {
	lay, err := newCacheLayout(ix, dh, fh, co.longMin)
	if err != nil {
		return err
	}
	capacity, err := cacheCapacity(ix, dh, fh, lay, co)
	if err != nil {
		return err
	}
	lc, err := newListCache(co.policy, capacity, lay.sizes)
	if err != nil {
		return err
	}
	qc := &qcache{lay: lay, lc: lc, hostOff: make([]int64, len(lay.sizes))}
	c.qc = qc
	var hostSize int64
	for i, s := range lay.sizes {
		qc.hostOff[i] = hostSize
		hostSize += align(s, 16)
	}
	if p, ok := c.be.(pinner); ok {
		if qc.host, qc.freeHost, err = p.pinned(max(hostSize, 1)); err != nil {
			qc.host, qc.freeHost = nil, nil // pageable memory still works, more slowly
		}
	}
	if qc.host == nil {
		qc.host = make([]byte, max(hostSize, 1))
	}

	nr := lay.nrows
	docOffs, freqOffs := make([]uint64, nr+1), make([]uint64, nr+1)
	counts, bases, lastDoc := make([]uint32, nr), make([]uint32, nr), make([]uint32, nr)
	freqBase := align(lay.shortDoc, 256)
	qc.cacheBase = align(freqBase+lay.shortFreq, 256)
	image := make([]byte, qc.cacheBase)
	dpos, fpos := int64(0), freqBase
	sk := ix.Skips()
	for t := range lay.rows {
		first, nb := termSpan(ix, t)
		r := int(lay.rows[t])
		copy(counts[r:r+nb], dh.Counts[first:first+nb])
		copy(bases[r:r+nb], dh.Bases[first:first+nb])
		// A spacer's count is 0 and its last docid unread: and_select
		// searches a list's own rows.
		copy(lastDoc[r:r+nb], sk.LastDocIDs[first:first+nb])
		d0, d1 := dh.Offsets[first], dh.Offsets[first+nb]
		f0, f1 := fh.Offsets[first], fh.Offsets[first+nb]
		if c := lay.long[t]; c >= 0 {
			h := qc.host[qc.hostOff[c]:]
			copy(h, dh.Data[d0:d1])
			copy(h[align(int64(d1-d0), 16):], fh.Data[f0:f1])
			continue
		}
		copy(image[dpos:], dh.Data[d0:d1])
		copy(image[fpos:], fh.Data[f0:f1])
		for i := 0; i <= nb; i++ {
			docOffs[r+i] = uint64(dpos) + dh.Offsets[first+i] - d0
			freqOffs[r+i] = uint64(fpos) + fh.Offsets[first+i] - f0
		}
		dpos += int64(d1 - d0)
		fpos += int64(f1 - f0)
	}
	arenaLen := qc.cacheBase + lc.capacity
	put := func(dst *devPtr, b []byte, size int64) error {
		p, err := alloc(size)
		if err != nil {
			return err
		}
		*dst = p
		if len(b) == 0 {
			return nil
		}
		return c.be.upload(p, b)
	}
	var countsP, basesP devPtr
	for _, a := range []struct {
		dst  *devPtr
		b    []byte
		size int64
	}{
		// The decoders stage whole 16-byte chunks, and one more, around
		// a block: 64 bytes of slack past the arena.
		{&qc.arena, image, arenaLen + 64},
		{&qc.docOffs, bytesOf(docOffs), 8 * int64(nr+1)},
		{&qc.freqOffs, bytesOf(freqOffs), 8 * int64(nr+1)},
		{&countsP, bytesOf(counts), 4 * int64(nr)},
		{&basesP, bytesOf(bases), 4 * int64(nr)},
		{&c.lastDoc, bytesOf(lastDoc), 4 * int64(nr)},
	} {
		if err := put(a.dst, a.b, a.size); err != nil {
			return fmt.Errorf("gpu: upload with a list cache: %w", err)
		}
	}
	c.doc = devColumn{stem: kernels[dh.Codec], data: qc.arena, offs: qc.docOffs, counts: countsP, bases: basesP,
		dataLen: uint64(arenaLen), blocks: nr}
	c.freq = devColumn{stem: kernels[fh.Codec], data: qc.arena, offs: qc.freqOffs, counts: countsP,
		dataLen: uint64(arenaLen), blocks: nr}
	return nil
}

// release frees the host copy of the long lists.
func (qc *qcache) release() error {
	if qc == nil || qc.freeHost == nil {
		return nil
	}
	f := qc.freeHost
	qc.freeHost = nil
	return f()
}

// rows moves the plans' lists to their device rows.
func (qc *qcache) rows(jobs []*qjob) {
	for _, j := range jobs {
		for i := range j.plan.lists {
			l := &j.plan.lists[i]
			l.first = qc.lay.rows[l.term]
		}
	}
}

// longLists appends the cache numbers of the plan's long lists not in ids.
func (l *cacheLayout) longLists(ids []int32, p *qplan) []int32 {
	for _, ql := range p.lists {
		if c := l.long[ql.term]; c >= 0 && !slices.Contains(ids, c) {
			ids = append(ids, c)
		}
	}
	return ids
}

// runCached runs jobs as run does, after making their long lists
// resident: in groups whose long lists fit the cache together, each
// group's missing lists copied in (one copy of its bytes and one of its
// offsets per column each) in a run of their own before the group's
// launch sequences, and pinned until they end. Without a cache it is run.
func (e *qengine) runCached(ws *workspace, jobs []*qjob, timing bool) error {
	qc := e.qc
	if qc == nil {
		return e.run(ws, jobs, timing)
	}
	qc.rows(jobs)
	seen := map[int32]bool{}
	for len(jobs) > 0 {
		var ids []int32
		var bytes int64
		clear(seen)
		n := 0
		for ; n < len(jobs); n++ {
			fresh := qc.lay.longLists(nil, &jobs[n].plan)
			var more int64
			k := 0
			for _, c := range fresh {
				if !seen[c] {
					fresh[k] = c
					k++
					more += qc.lc.size[c]
				}
			}
			if n > 0 && bytes+more > qc.lc.capacity {
				break
			}
			for _, c := range fresh[:k] {
				seen[c] = true
			}
			ids, bytes = append(ids, fresh[:k]...), bytes+more
		}
		if err := e.runGroup(ws, jobs[:n], ids, timing); err != nil {
			return err
		}
		jobs = jobs[n:]
	}
	return nil
}

// runGroup loads a group's missing lists, runs the group and unpins
// its lists.
func (e *qengine) runGroup(ws *workspace, jobs []*qjob, ids []int32, timing bool) error {
	if len(ids) == 0 { // short lists only: nothing to pin
		return e.run(ws, jobs, timing)
	}
	qc := e.qc
	loads, err := qc.lc.acquire(ids)
	if err != nil {
		return err
	}
	defer qc.lc.release(ids)
	if len(loads) > 0 {
		err = e.be.run(ws.lane, func(s stream) error {
			for _, l := range loads {
				if err := qc.load(s, l); err != nil {
					return err
				}
			}
			return nil
		})
		qc.lc.loaded(loads, err)
		if err != nil {
			return fmt.Errorf("gpu: stream lists to the cache: %w", err)
		}
	}
	return e.run(ws, jobs, timing)
}

// load queues the copy of one long list to its place in the cache and
// the rewrite of its rows' offsets.
func (qc *qcache) load(s stream, l cacheLoad) error {
	lay := qc.lay
	t := int(lay.terms[l.id])
	first, nb := int(lay.first[l.id]), int(lay.nb[l.id])
	at := qc.cacheBase + l.off
	h := qc.host[qc.hostOff[l.id]:]
	if err := s.upload(qc.arena+devPtr(at), h[:lay.sizes[l.id]]); err != nil {
		return err
	}
	row := devPtr(8 * lay.rows[t])
	d0 := lay.docOffs[first]
	fAt := uint64(at + align(int64(lay.docOffs[first+nb]-d0), 16))
	f0 := lay.freqOffs[first]
	offs := make([]uint64, 2*(nb+1))
	for i := 0; i <= nb; i++ {
		offs[i] = uint64(at) + lay.docOffs[first+i] - d0
		offs[nb+1+i] = fAt + lay.freqOffs[first+i] - f0
	}
	if err := s.upload(qc.docOffs+row, bytesOf(offs[:nb+1])); err != nil {
		return err
	}
	return s.upload(qc.freqOffs+row, bytesOf(offs[nb+1:]))
}
