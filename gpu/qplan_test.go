package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/query"
)

// TestQueryKernelConstants checks the constants the engine shares with the
// kernel sources (its kernels and their parameters are generated from
// query.cu: TestQueryKernelsGenerated).
func TestQueryKernelConstants(t *testing.T) {
	defines := map[string]int64{}
	define := regexp.MustCompile(`(?m)^#define (\w+) (0x[0-9a-f]+u?|\d+)\b`)
	for _, f := range []string{"kernels/query.cu", "kernels/decode.cu"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range define.FindAllSubmatch(src, -1) {
			v, err := strconv.ParseInt(string(m[2]), 0, 64)
			if err != nil {
				v, _ = strconv.ParseInt(string(m[2][:len(m[2])-1]), 0, 64)
			}
			defines[string(m[1])] = v
		}
	}
	want := map[string]int64{
		"TILE": qTile, "BIG": qBig, "FIN_CAP": qFinCap, "HIST_BITS": qHistBits, "WARPS": decodeWarps, "NONE": none32,
		"TREE_GROUP": treeGroup, "TREE_RUNS": treeRuns, "ISECT_META": isectMeta, "ISECT_MAX_LISTS": isectMaxLists,
		"S_NEED": sNeed, "S_SURE": sSure, "S_BND": sBnd, "S_FINAL": sFinal, "S_DONE": sDone, "S_RESULT": sResult,
		"S_BC0": sBC0, "S_STEPS": sSteps, "S_KEYS": sKeys, "OR_SPAN": orSpan, "SKIP_CAP": skipCapBlocks,
	}
	for name, v := range want {
		if got, ok := defines[name]; !ok || got != v {
			t.Errorf("#define %s = %d (found %v), the engine uses %d", name, got, ok, v)
		}
	}
	var bits uint64
	for r := range digitBits {
		if digitBits[r] > qHistBits || digitShift[r]+digitBits[r] != 64-bits {
			t.Errorf("radix round %d covers bits %d+%d after %d bits", r, digitShift[r], digitBits[r], bits)
		}
		bits += digitBits[r]
	}
	if bits != 64 {
		t.Errorf("radix rounds cover %d bits, want 64", bits)
	}
}

func TestKeyOrder(t *testing.T) {
	hits := []query.Hit{
		{DocID: 0, Score: 3}, {DocID: 7, Score: 3}, {DocID: 1, Score: 2.5}, {DocID: 2, Score: 1e-30},
		{DocID: math.MaxUint32 - 1, Score: 1e-30}, {DocID: 3, Score: 0}, {DocID: 4, Score: -1}, {DocID: 5, Score: -1e9},
		{DocID: 6, Score: math.MaxFloat32},
	}
	for _, a := range hits {
		if got := keyHit(makeKey(a.Score, a.DocID)); got != a {
			t.Errorf("keyHit(makeKey(%v)) = %v", a, got)
		}
		for _, b := range hits {
			ranksAbove := a.Score > b.Score || (a.Score == b.Score && a.DocID < b.DocID)
			if got := makeKey(a.Score, a.DocID) > makeKey(b.Score, b.DocID); got != ranksAbove {
				t.Errorf("makeKey(%v) > makeKey(%v) = %v, want %v", a, b, got, ranksAbove)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var keys []uint64
	ref := query.NewTopK(len(hits))
	for _, i := range rng.Perm(len(hits)) {
		keys = append(keys, makeKey(hits[i].Score, hits[i].DocID))
		ref.Push(hits[i])
	}
	if got, want := hitsFromKeys(keys), ref.Hits(); !slices.Equal(got, want) {
		t.Errorf("hitsFromKeys = %v, want %v", got, want)
	}
}

func TestPlanQuery(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 2000, Vocab: 40, Zipf: 1, Density: 0.8, Codec: "gpu-bp256", Seed: 1})
	df := func(r int) int {
		info, _ := ix.Lookup(termName(r))
		return int(info.DF)
	}
	t1, t5, t30 := termName(1), termName(5), termName(30)
	tests := []struct {
		name  string
		q     query.Query
		mode  query.Mode
		ok    bool
		lists []int // df of each list, in plan order
		pos   []int // list of each query position
	}{
		{"and-shortest-first", query.Query{Terms: []string{t1, t30, t5}, K: 10}, query.And, true, []int{df(30), df(5), df(1)}, []int{2, 0, 1}},
		{"and-duplicate", query.Query{Terms: []string{t5, t1, t5}, K: 10}, query.And, true, []int{df(5), df(1)}, []int{0, 1, 0}},
		{"and-missing", query.Query{Terms: []string{t5, "nope"}, K: 10}, query.And, false, nil, nil},
		{"or-query-order", query.Query{Terms: []string{t1, "nope", t30, t1}, K: 10}, query.Or, true, []int{df(1), df(30), df(1)}, []int{0, 1, 2}},
		{"or-nothing-found", query.Query{Terms: []string{"nope"}, K: 10}, query.Or, false, nil, nil},
		{"k-zero", query.Query{Terms: []string{t1}, K: 0}, query.Or, false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := planQuery(ix, tt.q, tt.mode)
			if ok != tt.ok {
				t.Fatalf("planQuery(%v, %s) ok = %v, want %v", tt.q, tt.mode, ok, tt.ok)
			}
			var lists, pos []int
			for _, l := range p.lists {
				lists = append(lists, l.df)
			}
			for _, q := range p.pos {
				pos = append(pos, q.list)
			}
			if !slices.Equal(lists, tt.lists) || !slices.Equal(pos, tt.pos) {
				t.Errorf("planQuery(%v, %s) lists %v, positions %v, want %v, %v", tt.q, tt.mode, lists, pos, tt.lists, tt.pos)
			}
			for i, q := range p.pos {
				if info, _ := ix.Lookup(tt.q.Terms[i]); ok && tt.mode == query.And && q.idf != ix.IDF(info) {
					t.Errorf("position %d: idf %v, want %v", i, q.idf, ix.IDF(info))
				}
			}
		})
	}
}

func TestGPUColumnReencode(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 5000, Vocab: 60, Zipf: 1, Density: 0.8, Codec: "bp128", Seed: 2})
	dh, fh := IndexColumns(ix)
	for _, h := range []HostColumn{dh, fh} {
		got, re, err := gpuColumn(h)
		if err != nil || !re || got.Codec != "gpu-bp128" {
			t.Fatalf("gpuColumn(%s column) = codec %s, re-encoded %v, %v; want gpu-bp128, true, nil", h.Codec, got.Codec, re, err)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("re-encoded column: Validate() = %v", err)
		}
		out := DocIDs
		if h.Bases == nil {
			out = Gaps
		}
		want := make([]uint32, h.NumBlocks()*h.BlockSize)
		have := make([]uint32, len(want))
		if err := h.Decode(want, nil, out); err != nil {
			t.Fatal(err)
		}
		if err := got.Decode(have, nil, out); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(have, want) {
			t.Errorf("re-encoded %s column decodes differently", out)
		}
	}
	// Enough blocks to be re-encoded in several chunks.
	bp, err := codecplugins.Lookup("bp128")
	if err != nil {
		t.Fatal(err)
	}
	long := EncodeList(bp, randomList(rand.New(rand.NewPCG(4, 4)), 5000*128+77, 1<<30))
	got, re, err := gpuColumn(long)
	if err != nil || !re {
		t.Fatalf("gpuColumn(%d blocks) = %v, %v", long.NumBlocks(), re, err)
	}
	want := make([]uint32, long.NumBlocks()*128)
	have := make([]uint32, len(want))
	if err := long.Decode(want, nil, DocIDs); err != nil {
		t.Fatal(err)
	}
	if err := got.Decode(have, nil, DocIDs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(have, want) {
		t.Errorf("re-encoded %d-block list decodes differently", long.NumBlocks())
	}
	gpuIx := openCorpus(t, corpusSpec{Docs: 500, Vocab: 10, Zipf: 1, Density: 0.8, Codec: "gpu-vbyte1024", Seed: 3})
	dh, _ = IndexColumns(gpuIx)
	if got, re, err := gpuColumn(dh); err != nil || re || got.Codec != "gpu-vbyte1024" {
		t.Errorf("gpuColumn(gpu-vbyte1024) = %s, %v, %v; want it unchanged", got.Codec, re, err)
	}
	c, err := codecplugins.Lookup("varint-SU")
	if err != nil {
		t.Fatal(err)
	}
	odd := EncodeValues(c, []uint32{1, 2, 3})
	odd.BlockSize = 64
	if _, _, err := gpuColumn(odd); err == nil {
		t.Errorf("gpuColumn of a 64-value-block column succeeded")
	}
}

// disjoint checks that regions (zero: unused) lie 256-byte aligned in
// [base, base+size), none shared.
func disjoint(t *testing.T, what string, regions []devPtr, base devPtr, size int64) {
	t.Helper()
	seen := map[devPtr]bool{}
	for _, r := range regions {
		if r == 0 {
			continue
		}
		if r%256 != 0 || r < base || r >= base+devPtr(size) || seen[r] {
			t.Errorf("%s: region at %#x (base %#x, size %d) misplaced or shared", what, r, base, size)
		}
		seen[r] = true
	}
}

func TestLayout(t *testing.T) {
	e := &qengine{bs: 256, docs: 100000}
	plans := []qplan{
		{k: 1000, lists: []qlist{{nb: 400, df: 100000}, {nb: 2, df: 300}}, pos: make([]qpos, 2)},
		{k: 5, lists: []qlist{{nb: 1, df: 1}}, pos: make([]qpos, 1)},
	}
	for _, p := range plans {
		s, size := e.layout(&p, 1<<20)
		disjoint(t, fmt.Sprintf("OR plan %+v", p), []devPtr{s.docs, s.freqs, s.acc, s.lvl1, s.hist, s.bnd[0], s.bnd[1]}, 1<<20, size)
		if s.resultCap < 1 || s.resultCap > p.k || s.slotBytes()%8 != 0 {
			t.Errorf("plan %+v: result capacity %d, slot %d bytes", p, s.resultCap, s.slotBytes())
		}
	}
}

// TestAndTable checks a wave's table against the layout and_wave reads in
// kernels/query.cu, and its scratch's layout.
func TestAndTable(t *testing.T) {
	e := &qengine{bs: 256, docs: 100000}
	plans := []qplan{
		{and: true, k: 10, lists: []qlist{{first: 7, nb: 3, df: 700}, {first: 90, nb: 40, df: 10000}, {first: 500, nb: 300, df: 76000}},
			pos: []qpos{{0, 1}, {2, 2}, {1, 3}, {0, 1}}},
		{and: true, k: 1000, lists: []qlist{{first: 3, nb: 2, df: 300}}, pos: []qpos{{0, 0.5}}},
		{and: true, k: 5, lists: []qlist{{first: 1, nb: 1, df: 1}, {first: 40, nb: 9, df: 2000}}, pos: []qpos{{1, 1}, {0, 2}}},
	}
	for w := 1; w <= len(plans); w++ {
		var jobs []*qjob
		for _, p := range plans[:w] {
			jobs = append(jobs, &qjob{plan: p})
		}
		tab := e.andTable(jobs)
		W, M := int64(w), tab.m
		part := func(at, n int64) []uint32 { return tab.words[at : at+n] }
		rows0, tile, sel, pos := part(4*W, W+1), part(5*W+1, W+1), part(6*W+2, W+1), part(7*W+3, W+1)
		first := part(andFirst0(W), M*W)
		nb := part(andFirst0(W)+M*W, M*W)
		plist := part(andFirst0(W)+2*M*W, int64(pos[W]))
		if int64(len(tab.words)) != andFirst0(W)+2*M*W+2*int64(pos[W]) {
			t.Fatalf("wave of %d: %d table words, want %d", w, len(tab.words), andFirst0(W)+2*M*W+2*int64(pos[W]))
		}
		for q, p := range plans[:w] {
			l0 := p.lists[0]
			got := []uint32{part(andNeeds(W), W)[q], part(andN1(W), W)[q], part(andCand(W), W)[q], part(3*W, W)[q],
				rows0[q+1] - rows0[q], tile[q+1] - tile[q]}
			want := []uint32{uint32(min(p.k, l0.df)), uint32(l0.df), rows0[q] * 256, uint32(len(p.lists)), uint32(l0.nb),
				uint32((l0.df + 255) / 256)}
			if !slices.Equal(got, want) {
				t.Errorf("wave of %d, query %d: need, n1, cand, m, rows, tiles = %v, want %v", w, q, got, want)
			}
			var selCap uint32
			for li, l := range p.lists {
				if first[int64(li)*W+int64(q)] != l.first || nb[int64(li)*W+int64(q)] != uint32(l.nb) {
					t.Errorf("wave of %d, query %d, list %d: first %d, nb %d", w, q, li, first[int64(li)*W+int64(q)], nb[int64(li)*W+int64(q)])
				}
				if li > 0 {
					selCap = max(selCap, uint32(min(l.nb, l0.df)))
				}
			}
			if sel[q+1]-sel[q] != selCap {
				t.Errorf("wave of %d, query %d: %d selection rows, want %d", w, q, sel[q+1]-sel[q], selCap)
			}
			for i, ps := range p.pos {
				if plist[int(pos[q])+i] != uint32(ps.list) {
					t.Errorf("wave of %d, query %d: position %d's list %d, want %d", w, q, i, plist[int(pos[q])+i], ps.list)
				}
			}
		}
		s, size := tab.layout(1<<20, 256)
		disjoint(t, fmt.Sprintf("wave of %d", w), []devPtr{s.tab, s.blk, s.row, s.at, s.tileCounts, s.tileOffsets, s.sel,
			s.docs, s.freqs, s.keys, s.hist, s.cand[0], s.cand[1], s.fm1[0], s.fm1[1], s.bnd[0], s.bnd[1]}, 1<<20, size)
		if (w == 1) != (s.bnd[1] != 0) {
			t.Errorf("wave of %d: second boundary %#x", w, s.bnd[1])
		}
	}
	// A pass alone of two lists or more and at most stepCands candidates
	// takes the one-CTA steps, with a selection row per candidate, fused
	// with their decodes (the columns share a format).
	e.stepCands = andStepCands
	big := qplan{and: true, k: 10, lists: []qlist{{first: 0, nb: 40, df: 10000}, {first: 50, nb: 80, df: 20000}},
		pos: []qpos{{0, 1}, {1, 1}}}
	for _, tt := range []struct {
		p     qplan
		small bool
	}{{plans[0], true}, {plans[1], false}, {plans[2], true}, {big, false}} {
		tab := e.andTable([]*qjob{{plan: tt.p}})
		if tab.small != tt.small || (tab.small && tab.selRows < tab.maxN1) || tab.fused != tt.small {
			t.Errorf("%d lists, shortest %d: small %v (fused %v), %d selection rows for %d candidates; want small %v",
				len(tt.p.lists), tt.p.lists[0].df, tab.small, tab.fused, tab.selRows, tab.maxN1, tt.small)
		}
		if tab.fused && (int64(len(tab.words)) != tab.tabWords || tab.words[tab.tabWords-1] != 0) {
			t.Errorf("%d lists: fused table of %d words, size class %d, last word %d; want the class, ending in a zero ticket",
				len(tt.p.lists), len(tab.words), tab.tabWords, tab.words[len(tab.words)-1])
		}
	}
}

func TestPhases(t *testing.T) {
	var ph Phases
	ph[PhaseDecode] = 3000
	ph[PhaseTopK] = 1500
	if ph.Total() != 4500 {
		t.Errorf("Total() = %v, want 4.5µs", ph.Total())
	}
	m := ph.Map()
	if len(m) != int(numPhases) || m["decode"] != 3 || m["topk"] != 1.5 || m["init"] != 0 {
		t.Errorf("Map() = %v", m)
	}
	if Phase(99).String() != "phase?" || PhaseSelection.String() != "selection" {
		t.Errorf("Phase names: %q, %q", Phase(99), PhaseSelection)
	}
}
