package gen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// Options control Generate. The zero value of a field means its default.
type Options struct {
	Docs       int    // number of documents (required)
	Seed       uint64 // the collection is a function of Seed, Docs, Order and Params
	Order      string // docid order: "url" (default: sites contiguous) or "random"
	Params     Params // model parameters (default DefaultParams)
	DocIDCodec string // docid codec (default "bp128")
	FreqCodec  string // frequency codec (default: DocIDCodec)
	Workers    int    // generating goroutines (default: every core)
	Force      bool   // replace an index in dir even with one of fewer than half its documents
	// Shards, when above 0, writes dir as a sharded collection of that
	// many shards (URL order only): the URL ranges of balanced document
	// counts index.Split cuts, each shard scored under the collection's
	// statistics, written at once by one index writer each.
	Shards int
	// AheadPostings bounds the postings generated ahead of the index
	// writer, or of the slowest shard writer (default 1<<24, about 128
	// MiB of lists).
	AheadPostings int64
	Progress      io.Writer // progress lines; nil for quiet
}

// Report describes a generated collection.
type Report struct {
	Docs          int     `json:"docs"`
	Terms         int64   `json:"terms"`
	Postings      uint64  `json:"postings"`
	Tokens        uint64  `json:"tokens"`
	Sites         int     `json:"sites"`
	KneeRank      float64 `json:"knee_rank"`
	RankedTerms   int64   `json:"ranked_term_ids"`
	TailTerms     int64   `json:"tail_terms"`
	LengthSeconds float64 `json:"length_pass_seconds"`
	WriteSeconds  float64 `json:"write_pass_seconds"`
	Seconds       float64 `json:"seconds"`
	// Collection and Shards describe a sharded collection (Options.Shards):
	// its identity and its shards, in docid order.
	Collection string        `json:"collection,omitempty"`
	Shards     []ShardReport `json:"shards,omitempty"`
}

// ShardReport is one shard of a generated sharded collection.
type ShardReport struct {
	Dir      string `json:"dir"` // inside the collection's directory
	FirstDoc uint32 `json:"first_doc"`
	Docs     uint64 `json:"docs"`
	Terms    uint64 `json:"terms"`
	Postings uint64 `json:"postings"`
	Tokens   uint64 `json:"tokens"`
	Bytes    int64  `json:"bytes"`
}

// Generate writes a synthetic collection's index to dir, or, with
// opts.Shards, the collection as a sharded collection: dir/shard-NN and
// dir/shards.json, as index.Split would write it from the one index.
//
// It runs two passes over the terms. The first draws every posting list
// in parallel, in any order, and only adds each posting's frequency to its
// document's length (the writer needs every length before the first list,
// for the block-max scores). The second draws the lists again, identically
// (each term has its own random stream), in lexicon order: workers fill
// batches of consecutive lexicon positions ahead of the writers (one, or
// one per shard, each fed every batch), at most AheadPostings postings
// ahead of the slowest. For shards a worker also cuts each list at the
// shards' first docids and shifts each part to its shard's docids.
func Generate(ctx context.Context, dir string, opts Options) (Report, error) {
	start := time.Now()
	var rep Report
	if opts.Params == (Params{}) {
		opts.Params = DefaultParams()
	}
	if opts.Order == "" {
		opts.Order = "url"
	}
	if opts.Order != "url" && opts.Order != "random" {
		return rep, fmt.Errorf("gen: unknown docid order %q (want url or random)", opts.Order)
	}
	if opts.DocIDCodec == "" {
		opts.DocIDCodec = "bp128"
	}
	if opts.FreqCodec == "" {
		opts.FreqCodec = opts.DocIDCodec
	}
	if opts.AheadPostings <= 0 {
		opts.AheadPostings = 1 << 24
	}
	switch {
	case opts.Shards < 0:
		return rep, fmt.Errorf("gen: %d shards: want at least 1 (or 0 for one index)", opts.Shards)
	case opts.Shards > 0 && opts.Order != "url":
		return rep, fmt.Errorf("gen: shards need url order: a shard is a range of URLs, and order %q scatters every URL range over the docids", opts.Order)
	case opts.Shards > 0 && opts.Docs > 0 && opts.Shards > opts.Docs:
		return rep, fmt.Errorf("gen: %d shards of %d documents: at most one shard per document", opts.Shards, opts.Docs)
	}
	workers := defaultWorkers(opts.Workers)
	m, err := newModel(opts.Params, opts.Docs, opts.Seed, workers)
	if err != nil {
		return rep, err
	}
	rep.Docs, rep.Sites, rep.KneeRank = m.n, m.numSites(), m.sp.r0
	rep.RankedTerms, rep.TailTerms = m.ranked, m.tail
	var coll *index.Dir
	if opts.Shards > 0 {
		// Locked before the first pass, so that a busy directory fails
		// at once rather than after minutes of generation.
		if _, err := index.ReadMeta(dir); err == nil {
			return rep, fmt.Errorf("gen: %s holds an index: a sharded collection needs a directory of its own", dir)
		}
		if coll, err = index.LockDir(dir); err != nil {
			return rep, err
		}
		defer coll.Unlock()
	}

	var perm []uint32
	if opts.Order == "random" {
		perm = randomPerm(m.n, opts.Seed)
	}
	t1 := time.Now()
	lens, present, err := m.lengths(ctx, opts.Seed, workers, opts.Progress)
	if err != nil {
		return rep, err
	}
	rep.LengthSeconds = time.Since(t1).Seconds()
	urls := m.urls()
	if perm != nil {
		pl, pu := make([]uint32, m.n), make([]string, m.n)
		for d, nd := range perm {
			pl[nd], pu[nd] = lens[d], urls[d]
		}
		lens, urls = pl, pu
	}
	for _, l := range lens {
		rep.Tokens += uint64(l)
	}
	id := ""
	if opts.Shards > 0 {
		id = collectionID(opts)
	}
	sinks, err := openSinks(dir, opts, id, lens, urls, rep.Tokens)
	if err != nil {
		return rep, err
	}
	t2 := time.Now()
	if err := m.write(ctx, sinks, opts.Seed, perm, present, workers, opts.AheadPostings, opts.Progress, &rep); err != nil {
		return rep, err
	}
	if coll != nil {
		if err := commitShards(coll, sinks, id, &rep); err != nil {
			return rep, err
		}
	}
	rep.WriteSeconds = time.Since(t2).Seconds()
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// sink is one index writer of the second pass: of the whole index, or of
// one shard, the collection's documents [first, end).
type sink struct {
	w          *index.Writer
	dir        string // a shard's directory in the collection's
	first, end uint32
	// df is the collection df of the term being added: the writer of a
	// shard asks for it (ShardSpec.DF) inside the AddTerm the sink's
	// goroutine makes, right after setting it.
	df   uint64
	done atomic.Int64 // batches written
}

// openSinks starts the writers of the second pass: one of dir's index,
// or, for shards, one per shard directory, each over its range of
// documents.
func openSinks(dir string, opts Options, id string, lens []uint32, urls []string, tokens uint64) ([]*sink, error) {
	wo := index.WriterOptions{DocIDCodec: opts.DocIDCodec, FreqCodec: opts.FreqCodec, Order: opts.Order, Force: opts.Force}
	if opts.Shards == 0 {
		w, err := index.NewWriter(dir, wo, lens, urls)
		if err != nil {
			return nil, err
		}
		return []*sink{{w: w, end: uint32(len(lens))}}, nil
	}
	n, k := uint64(len(lens)), uint64(opts.Shards)
	var sinks []*sink
	for j := range opts.Shards {
		// The cuts index.Split makes in an index without crawl files.
		s := &sink{dir: index.ShardDir(j), first: uint32(uint64(j) * n / k), end: uint32(uint64(j+1) * n / k)}
		o := wo
		o.Shard = &index.ShardSpec{
			Info:   index.ShardInfo{Collection: id, Index: j, Count: opts.Shards, FirstDoc: s.first, CollectionDocs: n},
			Tokens: tokens,
			DF:     func(string) uint64 { return s.df },
		}
		var err error
		s.w, err = index.NewWriter(filepath.Join(dir, s.dir), o, lens[s.first:s.end], urls[s.first:s.end])
		if err != nil {
			abortSinks(sinks)
			return nil, fmt.Errorf("gen: %s: %w", s.dir, err)
		}
		sinks = append(sinks, s)
	}
	return sinks, nil
}

func abortSinks(sinks []*sink) {
	for _, s := range sinks {
		s.w.Abort()
	}
}

// collectionID is a sharded collection's identity: a function of what
// the collection is a function of, so that the same options write the
// same bytes.
func collectionID(opts Options) string {
	h := sha256.Sum256(fmt.Appendf(nil, "gen %d %d %s %s %s %d %+v",
		opts.Docs, opts.Seed, opts.Order, opts.DocIDCodec, opts.FreqCodec, opts.Shards, opts.Params))
	return hex.EncodeToString(h[:16])
}

// commitShards writes the manifest of the committed shards, which makes
// the collection exist, and reports the shards.
func commitShards(coll *index.Dir, sinks []*sink, id string, rep *Report) error {
	man := index.Manifest{Collection: id, Docs: uint64(rep.Docs), Tokens: rep.Tokens}
	for _, s := range sinks {
		m, err := index.ReadMeta(filepath.Join(coll.Path(), s.dir))
		if err != nil {
			return err
		}
		man.Shards = append(man.Shards, index.ManifestShard{Dir: s.dir, FirstDoc: s.first, Docs: m.Docs})
		rep.Shards = append(rep.Shards, ShardReport{Dir: s.dir, FirstDoc: s.first, Docs: m.Docs,
			Terms: m.Terms, Postings: m.Postings, Tokens: m.Tokens, Bytes: m.Bytes()})
	}
	if err := coll.CommitManifest(man); err != nil {
		return err
	}
	rep.Collection = id
	return nil
}

// singleTermJobs is how many leading term ids are each a job of their own
// in the first pass (they hold most postings); the rest go in chunks.
const (
	singleTermJobs = 1 << 16
	chunkTerms     = 1 << 12
)

// lengths is the first pass: it returns every document's length (the sum
// of its frequencies) and the bitmap of ranked term ids that occur.
func (m *model) lengths(ctx context.Context, seed uint64, workers int, progress io.Writer) ([]uint32, []uint64, error) {
	present := make([]uint64, (m.ranked+63)/64)
	// Each worker adds into its own lengths, so that the adds (mostly
	// cache misses) overlap instead of serialising as atomic adds would.
	local := make([][]uint32, workers)
	single := min(m.total, singleTermJobs)
	jobs := single + (m.total-single+chunkTerms-1)/chunkTerms
	var next atomic.Int64
	var done atomic.Int64 // expected bursts of finished terms, rounded
	stop := startProgress(progress, func() string {
		return fmt.Sprintf("gen: pass 1 (lengths): %.0f%%", 100*float64(done.Load())/m.u)
	})
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newTermGen(m, nil)
			lens := make([]uint32, m.n)
			local[w] = lens
			for {
				j := next.Add(1) - 1
				if j >= jobs {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				lo, hi := j, j+1
				if j >= single {
					lo = single + (j-single)*chunkTerms
					hi = min(m.total, lo+chunkTerms)
				}
				var exp float64
				for t := lo; t < hi; t++ {
					docs, tfs := g.list(seed, t)
					if len(docs) > 0 && t < m.ranked {
						atomic.OrUint64(&present[t>>6], 1<<(t&63))
					}
					for i, d := range docs {
						lens[d] += tfs[i]
					}
					exp += g.expected
				}
				done.Add(int64(exp))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	lens := local[0]
	sumParallel(lens, local[1:], workers)
	return lens, present, nil
}

// sumParallel adds every array of others into dst, element by element.
func sumParallel(dst []uint32, others [][]uint32, workers int) {
	var wg sync.WaitGroup
	per := (len(dst) + workers - 1) / workers
	for lo := 0; lo < len(dst); lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for _, o := range others {
				for i := lo; i < hi; i++ {
					dst[i] += o[i]
				}
			}
		}(lo, min(len(dst), lo+per))
	}
	wg.Wait()
}

// batch is the lists of one run of consecutive lexicon positions.
type batch struct {
	pos []int64 // lexicon positions of the terms that occur
	// cuts has, per term, one row of len(sinks)+1 offsets into docs/tfs:
	// where each sink's part of the list starts, then where the list
	// ends.
	cuts      []int
	docs, tfs []uint32
	pending   atomic.Int32 // sinks yet to write it
}

// budget keeps workers at most limit postings ahead of the writer; the
// batch the writer waits for is always let through.
type budget struct {
	mu       sync.Mutex
	cond     *sync.Cond
	used     int64
	limit    int64
	next     int64 // batch the writer needs next
	canceled bool
}

func (b *budget) acquire(idx, n int64) {
	b.mu.Lock()
	for !b.canceled && idx != b.next && b.used+n > b.limit {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.next++
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *budget) cancel() {
	b.mu.Lock()
	b.canceled = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// write is the second pass: lists in lexicon order to every sink, each
// sink written by a goroutine of its own; it closes the sinks' writers,
// committing them, or aborts them all on an error.
func (m *model) write(ctx context.Context, sinks []*sink, seed uint64, perm []uint32, present []uint64,
	workers int, ahead int64, progress io.Writer, rep *Report) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lex := newLexicon(m.total, seed)
	nb := (m.total + chunkTerms - 1) / chunkTerms
	ns := len(sinks)
	// Batch j lies in batches[j] once filled[j] is closed, until the last
	// sink has written it.
	batches := make([]*batch, nb)
	filled := make([]chan struct{}, nb)
	for i := range filled {
		filled[i] = make(chan struct{})
	}
	bud := &budget{limit: ahead}
	bud.cond = sync.NewCond(&bud.mu)
	var wg sync.WaitGroup
	defer func() { // unblock and wait for the workers, whatever happened
		cancel()
		bud.cancel()
		wg.Wait()
	}()
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newTermGen(m, perm)
			for {
				j := next.Add(1) - 1
				if j >= nb || ctx.Err() != nil {
					return
				}
				// A fresh batch each time: a recycled one would keep the
				// capacity of the largest batch it ever held, which the
				// budget (it counts postings) does not see.
				b := new(batch)
				for p := j * chunkTerms; p < min(m.total, (j+1)*chunkTerms); p++ {
					t := lex.termID(p)
					if t < m.ranked && present[t>>6]&(1<<(t&63)) == 0 {
						continue
					}
					docs, tfs := g.list(seed, t)
					// Every list is paid for before it is kept, so
					// that a worker waiting for the writers holds at
					// most its budget, not a whole batch.
					bud.acquire(j, int64(len(docs)))
					b.pos = append(b.pos, p)
					b.cuts = appendCuts(b.cuts, sinks, len(b.docs), docs)
					b.docs = append(b.docs, docs...)
					b.tfs = append(b.tfs, tfs...)
					b.cuts = append(b.cuts, len(b.docs))
					shiftParts(b.docs, b.cuts[len(b.cuts)-ns-1:], sinks)
				}
				b.pending.Store(int32(ns))
				batches[j] = b
				close(filled[j])
			}
		}()
	}
	var terms, postings atomic.Int64
	stop := startProgress(progress, func() string {
		done := nb
		for _, s := range sinks {
			done = min(done, s.done.Load())
		}
		line := fmt.Sprintf("gen: pass 2 (write): %d/%d terms positions", min(m.total, done*chunkTerms), m.total)
		if ns > 1 {
			line += fmt.Sprintf(" (the slowest of %d shard writers)", ns)
		}
		return line
	})
	defer stop()
	var failed sync.Once
	var firstErr error
	var sw sync.WaitGroup
	for k, s := range sinks {
		sw.Add(1)
		go func() {
			defer sw.Done()
			for j := range nb {
				select {
				case <-filled[j]:
				case <-ctx.Done():
					failed.Do(func() { firstErr = ctx.Err() })
					return
				}
				b := batches[j]
				for i, p := range b.pos {
					row := b.cuts[i*(ns+1) : (i+1)*(ns+1)]
					lo, hi := row[k], row[k+1]
					if lo == hi { // no posting in this shard
						continue
					}
					s.df = uint64(row[ns] - row[0])
					if err := s.w.AddTerm(lex.term(p), b.docs[lo:hi], b.tfs[lo:hi]); err != nil {
						failed.Do(func() { firstErr = fmt.Errorf("gen: %w", err); cancel() })
						return
					}
				}
				s.done.Store(j + 1)
				if b.pending.Add(-1) == 0 {
					terms.Add(int64(len(b.pos)))
					postings.Add(int64(len(b.docs)))
					batches[j] = nil
					bud.release(int64(len(b.docs)))
				}
			}
		}()
	}
	sw.Wait()
	rep.Terms, rep.Postings = terms.Load(), uint64(postings.Load())
	if firstErr != nil {
		abortSinks(sinks)
		return firstErr
	}
	// Closing a writer finishes and syncs its files: the shards' at once.
	errs := make([]error, ns)
	for k, s := range sinks {
		sw.Add(1)
		go func() {
			defer sw.Done()
			errs[k] = s.w.Close()
		}()
	}
	sw.Wait()
	return errors.Join(errs...)
}

// appendCuts appends, for a list about to be appended at offset at of a
// batch's docs, where each sink's part of it starts: sinks hold
// consecutive docid ranges, so the parts are found by binary search.
func appendCuts(cuts []int, sinks []*sink, at int, docs []uint32) []int {
	cuts = append(cuts, at)
	for _, s := range sinks[1:] {
		i, _ := slices.BinarySearch(docs, s.first)
		cuts = append(cuts, at+i)
	}
	return cuts
}

// shiftParts renumbers each sink's part of a list (row is the list's
// row of cuts) into the sink's docids.
func shiftParts(docs []uint32, row []int, sinks []*sink) {
	for k, s := range sinks {
		if s.first == 0 {
			continue
		}
		for i := row[k]; i < row[k+1]; i++ {
			docs[i] -= s.first
		}
	}
}

// lexicon maps lexicon positions to term ids (a keyed permutation, so that
// frequent terms are spread through the lexicon as real words are) and to
// term strings.
type lexicon struct {
	n     int64
	bits  uint
	mask  uint64
	keys  [3]uint64
	width int
}

// termAlphabet spells terms: consonants only, so that no term has a vowel
// and Porter2 leaves every one unchanged (and "l", "s" and "y", which it
// treats specially, are left out too).
const termAlphabet = "bcdfghjkmnpqrtvwxz"

func newLexicon(n int64, seed uint64) *lexicon {
	l := &lexicon{n: n, bits: uint(max(2, bits.Len64(uint64(max(n-1, 1)))))}
	l.mask = 1<<l.bits - 1
	for i := range l.keys {
		l.keys[i] = splitmix64(seed ^ splitmix64(saltPerm+uint64(i)))
	}
	l.width = 1
	for c := int64(len(termAlphabet)); c < n; c *= int64(len(termAlphabet)) {
		l.width++
	}
	return l
}

// termID is the term id at lexicon position p: a bijection of [0, n),
// cycle-walking a bijection of [0, 2^bits).
func (l *lexicon) termID(p int64) int64 {
	x := uint64(p)
	for {
		for _, k := range l.keys {
			x = (x*0x9e3779b97f4a7c15 + k) & l.mask
			x ^= x >> (l.bits/2 + 1)
		}
		if x < uint64(l.n) {
			return int64(x)
		}
	}
}

// term spells lexicon position p in fixed width, so that string order is
// position order.
func (l *lexicon) term(p int64) string {
	b := make([]byte, l.width)
	base := int64(len(termAlphabet))
	for i := l.width - 1; i >= 0; i-- {
		b[i] = termAlphabet[p%base]
		p /= base
	}
	return string(b)
}

// urls names documents http://sSITE.gen.test/NUM with fixed-width
// numbers, so that URL order is generation order.
func (m *model) urls() []string {
	sw := len(strconv.Itoa(m.numSites() - 1))
	maxSite := 1
	for s := range m.numSites() {
		maxSite = max(maxSite, int(m.sites[s+1]-m.sites[s]))
	}
	pw := len(strconv.Itoa(maxSite - 1))
	per := len("http://s") + sw + len(".gen.test/") + pw
	buf := make([]byte, 0, per*m.n)
	for s := range m.numSites() {
		for i := range int(m.sites[s+1] - m.sites[s]) {
			buf = append(buf, "http://s"...)
			buf = appendPadded(buf, s, sw)
			buf = append(buf, ".gen.test/"...)
			buf = appendPadded(buf, i, pw)
		}
	}
	all := string(buf)
	urls := make([]string, m.n)
	for d := range urls {
		urls[d] = all[d*per : (d+1)*per]
	}
	return urls
}

func appendPadded(b []byte, v, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], int64(v), 10)
	for range width - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

// randomPerm is a seeded random permutation: old docid -> new docid.
func randomPerm(n int, seed uint64) []uint32 {
	p := make([]uint32, n)
	for i := range p {
		p[i] = uint32(i)
	}
	r := rand.New(stream(seed, saltPerm, math.MaxUint64))
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// startProgress prints line() every second until the returned stop is
// called (nothing when w is nil).
func startProgress(w io.Writer, line func() string) (stop func()) {
	if w == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fmt.Fprintln(w, line())
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
	}
}
