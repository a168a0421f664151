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
	"slices"
	"sort"
)

// A posting packs a document slot (high 32 bits) and a term frequency (low
// 32 bits), so that sorting postings sorts them by slot.
type posting = uint64

func pack(slot, tf uint32) posting { return posting(slot)<<32 | posting(tf) }

// Memory estimates used against the budget.
const (
	bytesPerPosting = 12 // 8 bytes, plus slice growth slack
	bytesPerTerm    = 96 // map entry, slice header, term slice entry
)

// inverter accumulates postings in memory and spills sorted runs to disk
// when its estimate passes the budget.
type inverter struct {
	ctx     context.Context // a spill stops with its error when it ends
	budget  int64
	dir     string // scratch directory for runs
	ids     map[string]int32
	terms   []string
	lists   [][]posting
	used    int64
	runs    []string
	scratch []byte
}

func newInverter(ctx context.Context, budget int64, dir string) *inverter {
	return &inverter{ctx: ctx, budget: budget, dir: dir, ids: map[string]int32{}}
}

// add records one document's term frequencies.
func (v *inverter) add(slot uint32, tfs map[string]uint32) error {
	for term, tf := range tfs {
		id, ok := v.ids[term]
		if !ok {
			id = int32(len(v.terms))
			v.ids[term] = id
			v.terms = append(v.terms, term)
			v.lists = append(v.lists, nil)
			v.used += bytesPerTerm + int64(len(term))
		}
		v.lists[id] = append(v.lists[id], pack(slot, tf))
	}
	v.used += int64(len(tfs)) * bytesPerPosting
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
		if l := v.lists[id]; !slices.IsSorted(l) {
			slices.Sort(l)
		}
	}
	return order
}

// flush writes what is in memory as a sorted run and empties memory.
//
// Run format: per term, in term order: uvarint term length, term bytes,
// uvarint posting count, then per posting uvarint slot gap and uvarint tf.
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
		l := v.lists[id]
		b = binary.AppendUvarint(b, uint64(len(l)))
		prev := uint32(0)
		for _, p := range l {
			slot := uint32(p >> 32)
			b = binary.AppendUvarint(b, uint64(slot-prev))
			b = binary.AppendUvarint(b, uint64(uint32(p)))
			prev = slot
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
	v.terms, v.lists, v.used = nil, nil, 0
	return nil
}

// termSource yields (term, postings sorted by slot) in increasing term order.
type termSource interface {
	next() (term string, list []posting, err error) // io.EOF at the end
	close()
}

type memSource struct {
	v     *inverter
	order []int32
}

func (s *memSource) next() (string, []posting, error) {
	if len(s.order) == 0 {
		return "", nil, io.EOF
	}
	id := s.order[0]
	s.order = s.order[1:]
	return s.v.terms[id], s.v.lists[id], nil
}

func (s *memSource) close() {}

type runSource struct {
	name string
	f    *os.File
	r    *bufio.Reader
	buf  []posting
}

func openRun(name string) (*runSource, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("indexer: open run: %w", err)
	}
	return &runSource{name: name, f: f, r: bufio.NewReaderSize(f, 64<<10)}, nil
}

func (s *runSource) next() (string, []posting, error) {
	tlen, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return "", nil, io.EOF
	}
	if err != nil || tlen > 1<<20 {
		return "", nil, fmt.Errorf("indexer: run %s damaged", s.name)
	}
	tb := make([]byte, tlen)
	if _, err := io.ReadFull(s.r, tb); err != nil {
		return "", nil, fmt.Errorf("indexer: run %s damaged: %w", s.name, err)
	}
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return "", nil, fmt.Errorf("indexer: run %s damaged: %w", s.name, err)
	}
	s.buf = s.buf[:0]
	slot := uint64(0)
	for i := uint64(0); i < n; i++ {
		g, err1 := binary.ReadUvarint(s.r)
		tf, err2 := binary.ReadUvarint(s.r)
		if err := errors.Join(err1, err2); err != nil {
			return "", nil, fmt.Errorf("indexer: run %s damaged: %w", s.name, err)
		}
		slot += g
		s.buf = append(s.buf, pack(uint32(slot), uint32(tf)))
	}
	return string(tb), s.buf, nil
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
// memory combined and sorted by slot, to emit.
func (v *inverter) merge(emit func(term string, list []posting) error) error {
	sources := []termSource{&memSource{v: v, order: v.sortedTerms()}}
	for _, name := range v.runs {
		rs, err := openRun(name)
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
	for h.Len() > 0 {
		term := h[0].term
		list = list[:0]
		for h.Len() > 0 && h[0].term == term {
			mh := heap.Pop(&h).(*mergeHead)
			list = append(list, mh.list...)
			if err := h.advance(mh); err != nil {
				return err
			}
		}
		if !slices.IsSorted(list) {
			slices.Sort(list)
		}
		if err := emit(term, list); err != nil {
			return err
		}
	}
	return nil
}

// advance reads the source's next term and pushes it, unless it is done.
func (h *mergeHeap) advance(mh *mergeHead) error {
	term, list, err := mh.src.next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	mh.term, mh.list = term, list
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
