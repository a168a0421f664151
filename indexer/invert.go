package indexer

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// A posting packs a document slot (high 32 bits) and a term frequency (low
// 32 bits), so that sorting postings sorts them by slot.
type posting = uint64

func pack(slot, tf uint32) posting { return posting(slot)<<32 | posting(tf) }

// Memory estimates used against the budget.
const (
	bytesPerPosting  = 12 // 8 bytes, plus slice growth slack
	bytesPerPosition = 5  // 4 bytes, plus slice growth slack
	bytesPerTerm     = 96 // map entry, slice header, term slice entry
)

// inverter accumulates postings in memory and spills sorted runs to disk
// when its estimate passes the budget.
type inverter struct {
	ctx       context.Context // a spill stops with its error when it ends
	budget    int64
	dir       string // scratch directory for runs
	positions bool   // keep each posting's positions
	ids       map[string]int32
	terms     []string
	lists     [][]posting
	pos       [][]uint32 // with positions: per term, its postings' positions in list order
	used      int64
	runs      []string
	scratch   []byte
}

func newInverter(ctx context.Context, budget int64, dir string, positions bool) *inverter {
	return &inverter{ctx: ctx, budget: budget, dir: dir, positions: positions, ids: map[string]int32{}}
}

// add records one document's terms.
func (v *inverter) add(slot uint32, d docTerms) error {
	off := uint32(0)
	for i, term := range d.terms {
		id, ok := v.ids[term]
		if !ok {
			id = int32(len(v.terms))
			v.ids[term] = id
			v.terms = append(v.terms, term)
			v.lists = append(v.lists, nil)
			if v.positions {
				v.pos = append(v.pos, nil)
			}
			v.used += bytesPerTerm + int64(len(term))
		}
		tf := d.tfs[i]
		v.lists[id] = append(v.lists[id], pack(slot, tf))
		if v.positions {
			v.pos[id] = append(v.pos[id], d.pos[off:off+tf]...)
			off += tf
		}
	}
	v.used += int64(len(d.terms))*bytesPerPosting + int64(len(d.pos))*bytesPerPosition
	if v.used >= v.budget {
		return v.flush()
	}
	return nil
}

// sortedTerms returns the term ids in term order, each list sorted by slot.
func (v *inverter) sortedTerms() []int32 {
	order := make([]int32, len(v.terms))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return v.terms[order[a]] < v.terms[order[b]] })
	for _, id := range order {
		sortPostings(v.lists[id], v.positionsOf(id))
	}
	return order
}

// positionsOf is term id's positions, nil without positions.
func (v *inverter) positionsOf(id int32) []uint32 {
	if !v.positions {
		return nil
	}
	return v.pos[id]
}

// flush writes what is in memory as a sorted run and empties memory.
//
// Run format: per term, in term order: uvarint term length, term bytes,
// uvarint posting count, then per posting uvarint slot gap and uvarint tf,
// and with positions, tf uvarint position gaps (the first from 0).
func (v *inverter) flush() error {
	if len(v.terms) == 0 {
		return nil
	}
	f, err := os.CreateTemp(v.dir, "run-*")
	if err != nil {
		return fmt.Errorf("indexer: create run: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i, id := range v.sortedTerms() {
		if i%4096 == 0 && v.ctx.Err() != nil {
			f.Close()
			return v.ctx.Err()
		}
		b := binary.AppendUvarint(v.scratch[:0], uint64(len(v.terms[id])))
		b = append(b, v.terms[id]...)
		l, pos := v.lists[id], v.positionsOf(id)
		b = binary.AppendUvarint(b, uint64(len(l)))
		prev := uint32(0)
		for _, p := range l {
			slot := uint32(p >> 32)
			b = binary.AppendUvarint(b, uint64(slot-prev))
			b = binary.AppendUvarint(b, uint64(uint32(p)))
			prev = slot
			if v.positions {
				last := uint32(0)
				for _, q := range pos[:uint32(p)] {
					b = binary.AppendUvarint(b, uint64(q-last))
					last = q
				}
				pos = pos[uint32(p):]
			}
		}
		v.scratch = b
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("indexer: write run: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("indexer: write run: %w", err)
	}
	v.runs = append(v.runs, f.Name())
	v.ids = map[string]int32{}
	v.terms, v.lists, v.pos, v.used = nil, nil, nil, 0
	return nil
}

// termSource yields (term, postings sorted by slot, their positions or
// nil) in increasing term order.
type termSource interface {
	next() (term string, list []posting, pos []uint32, err error) // io.EOF at the end
	close()
}

type memSource struct {
	v     *inverter
	order []int32
}

func (s *memSource) next() (string, []posting, []uint32, error) {
	if len(s.order) == 0 {
		return "", nil, nil, io.EOF
	}
	id := s.order[0]
	s.order = s.order[1:]
	return s.v.terms[id], s.v.lists[id], s.v.positionsOf(id), nil
}

func (s *memSource) close() {}

type runSource struct {
	name      string
	f         *os.File
	r         *bufio.Reader
	positions bool
	buf       []posting
	pos       []uint32
}

func openRun(name string, positions bool) (*runSource, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("indexer: open run: %w", err)
	}
	return &runSource{name: name, f: f, r: bufio.NewReaderSize(f, 64<<10), positions: positions}, nil
}

func (s *runSource) next() (string, []posting, []uint32, error) {
	damaged := func(err error) (string, []posting, []uint32, error) {
		return "", nil, nil, fmt.Errorf("indexer: run %s damaged: %w", s.name, err)
	}
	tlen, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return "", nil, nil, io.EOF
	}
	if err == nil && tlen > 1<<20 {
		err = errors.New("term too long")
	}
	if err != nil {
		return damaged(err)
	}
	tb := make([]byte, tlen)
	if _, err := io.ReadFull(s.r, tb); err != nil {
		return damaged(err)
	}
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return damaged(err)
	}
	s.buf, s.pos = s.buf[:0], s.pos[:0]
	slot := uint64(0)
	for i := uint64(0); i < n; i++ {
		g, err1 := binary.ReadUvarint(s.r)
		tf, err2 := binary.ReadUvarint(s.r)
		if err := errors.Join(err1, err2); err != nil {
			return damaged(err)
		}
		slot += g
		s.buf = append(s.buf, pack(uint32(slot), uint32(tf)))
		for p := uint64(0); s.positions && p < tf; p++ {
			gap, err := binary.ReadUvarint(s.r)
			if err != nil {
				return damaged(err)
			}
			last := uint32(0)
			if p > 0 {
				last = s.pos[len(s.pos)-1]
			}
			s.pos = append(s.pos, last+uint32(gap))
		}
	}
	if !s.positions {
		return string(tb), s.buf, nil, nil
	}
	return string(tb), s.buf, s.pos, nil
}

func (s *runSource) close() {
	s.f.Close()
	os.Remove(s.name)
}

// mergeHead is one source's current term in the merge heap.
type mergeHead struct {
	src  termSource
	term string
	list []posting
	pos  []uint32
}

type mergeHeap []*mergeHead

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return h[i].term < h[j].term }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*mergeHead)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge streams every term, in order, with its postings from the runs and
// memory combined and sorted by slot, and their positions (nil without),
// to emit.
func (v *inverter) merge(emit func(term string, list []posting, pos []uint32) error) error {
	sources := []termSource{&memSource{v: v, order: v.sortedTerms()}}
	for _, name := range v.runs {
		rs, err := openRun(name, v.positions)
		if err != nil {
			for _, s := range sources {
				s.close()
			}
			return err
		}
		sources = append(sources, rs)
	}
	defer func() {
		for _, s := range sources {
			s.close()
		}
	}()
	h := mergeHeap{}
	for _, s := range sources {
		if err := h.advance(&mergeHead{src: s}); err != nil {
			return err
		}
	}
	var list []posting
	var pos []uint32
	for h.Len() > 0 {
		term := h[0].term
		list, pos = list[:0], pos[:0]
		for h.Len() > 0 && h[0].term == term {
			mh := heap.Pop(&h).(*mergeHead)
			list = append(list, mh.list...)
			pos = append(pos, mh.pos...)
			if err := h.advance(mh); err != nil {
				return err
			}
		}
		if !v.positions {
			pos = nil
		}
		sortPostings(list, pos)
		if err := emit(term, list, pos); err != nil {
			return err
		}
	}
	return nil
}

// advance reads the source's next term and pushes it, unless it is done.
func (h *mergeHeap) advance(mh *mergeHead) error {
	term, list, pos, err := mh.src.next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	mh.term, mh.list, mh.pos = term, list, pos
	heap.Push(h, mh)
	return nil
}

// scratchDir creates the directory for runs.
func scratchDir(parent string) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("indexer: %w", err)
	}
	d, err := os.MkdirTemp(parent, ".runs-*")
	if err != nil {
		return "", fmt.Errorf("indexer: %w", err)
	}
	return filepath.Clean(d), nil
}
