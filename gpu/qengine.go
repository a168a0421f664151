package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Launch geometry and state layout shared with kernels/query.cu (TILE,
// BIG, FIN_CAP, HIST_BITS, S_*) and decode.cu (WARPS); TestQueryKernelConstants
// checks them against the sources.
const (
	qTile       = 256
	qBig        = 1024
	qFinCap     = 4096
	qHistBits   = 13
	decodeWarps = 4
	none32      = math.MaxUint32
	orSpan      = 8192 // OR_SPAN: documents per CTA of or_span_wave
	// ctaTopKKeys is the default of qengine.ctaKeys: a few passes of 256
	// threads over that many keys cost less than the top-k kernels'
	// launches and global histogram (cta_topk in kernels/query.cu).
	ctaTopKKeys = 1 << 14
	// andStepCands is the default of qengine.stepCands: one CTA of 1,024
	// threads walks that many candidates a step in two rounds, fewer
	// dependent round trips than the general steps' five kernels.
	andStepCands = 2048
	// skipCapBlocks is SKIP_CAP in kernels/query.cu.
	skipCapBlocks = 8192
)

// State words of a query pass (S_* in query.cu). From sSteps on: for AND,
// the candidates left after each list (m words), then the blocks selected
// in each list (m words).
const (
	sNeed = iota
	sSure
	sBnd
	sFinal
	sDone
	sResult
	sBC0
	sBC1
	sSteps
	// sKeys (S_KEYS): a wave's OR pass counts its candidate keys here.
	sKeys = sSteps
)

// The radix select's digits: round r histograms key bits
// [digitShift[r], digitShift[r]+digitBits[r]).
var (
	digitShift = [...]uint64{52, 39, 26, 13, 0}
	digitBits  = [...]uint64{12, 13, 13, 13, 13}
)

// qengine answers queries on a backend: the index's columns, skip column
// and norms stay resident; each query pass runs as one launch sequence over
// a scratch arena; a batch of passes shares one synchronization.
type qengine struct {
	ix        *index.Index
	be        backend
	cols      *columns // docCol, freqCol and lastDoc, maybe shared with other engines
	bs        int
	docs      int
	k1p1      uint32 // float32 bits of k1+1
	docCol    devColumn
	freqCol   devColumn
	lastDoc   devPtr
	norms     devPtr
	gridCap   int
	reencoded bool
	// A wave of OR passes decodes at most wavePostings postings (see
	// runWaves), one of AND passes at most waveCandidates candidates (see
	// runAnd).
	wavePostings, waveCandidates int64
	// ctaKeys bounds the keys of a query alone whose top-k one CTA
	// selects (ctaTopKKeys; tests set 0 for the top-k kernels).
	ctaKeys int64
	// stepCands bounds the candidates of a query alone whose AND steps
	// run one CTA each (andStepCands; tests set 0 for the general steps),
	// skipBlocks the lists whose skip column those steps search in shared
	// memory (skipCapBlocks; tests set 0 for the global search).
	stepCands, skipBlocks int64
	// unfused keeps those steps off the fused kernels that decode inside
	// them (andTable.fused; tests set it to cover the steps apart).
	unfused bool
	topk    string // a single OR pass's top-k: TopKRadix or TopKTree
	// qc is the columns' list cache when they have one (the long lists do
	// not stay resident).
	qc *qcache

	// life is held for reading by searches and for writing by release.
	life     sync.RWMutex
	released bool
	owned    []devPtr
	spare    chan *workspace // the workspaces no search holds
}

// workspaces bounds the searches an engine runs at once: each holds a
// workspace and its lane, whose device memory stays allocated for the next
// one. The scheduler's three workers per GPU (gpu.workers) use three; a
// fourth worker gave hybrid no more throughput (docs/scheduling.md).
const workspaces = 4

// workspace is one search's device scratch, its device slots for results
// and their host copy, and its lane of the backend. Each search in flight
// has its own, so that searches prepare and finish on the host while
// another's launches run, and their runs overlap on the device.
type workspace struct {
	lane    int
	scratch devPtr
	scrSize int64
	out     devPtr
	outSize int64
	slotBuf []byte
}

// slots returns the host buffer for n bytes of slots.
func (ws *workspace) slots(n int64) []byte {
	if int64(cap(ws.slotBuf)) < n {
		ws.slotBuf = make([]byte, n)
	}
	return ws.slotBuf[:n]
}

// takeWorkspace waits for a spare workspace, or for ctx to be done.
func (e *qengine) takeWorkspace(ctx context.Context) (*workspace, error) {
	select {
	case ws := <-e.spare:
		return ws, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// newQEngine uploads ix to the backend. A column whose codec has no GPU
// decoder is re-encoded first (see gpuColumn).
func newQEngine(ix *index.Index, be backend) (*qengine, error) {
	return newQEngineCache(ix, be, cacheOptions{})
}

// newQEngineCache is newQEngine with a list cache where co asks for one
// (see wantCache).
func newQEngineCache(ix *index.Index, be backend, co cacheOptions) (*qengine, error) {
	cols, err := uploadColumnsCache(ix, be, co)
	if err != nil {
		return nil, err
	}
	cols.refs = 1
	return newQEngineOn(ix, cols)
}

// newQEngineOn makes an engine for ix on columns holding its lists,
// taking over one reference to them, and uploads ix's norms, which
// follow the statistics of ix's collection.
func newQEngineOn(ix *index.Index, cols *columns) (*qengine, error) {
	be := cols.be
	e := &qengine{ix: ix, be: be, cols: cols, docCol: cols.doc, freqCol: cols.freq, lastDoc: cols.lastDoc, reencoded: cols.reencoded,
		qc: cols.qc, bs: ix.BlockSize(), docs: ix.NumDocs(), gridCap: 8 * max(1, be.multiprocessors()),
		wavePostings: defaultWavePostings, waveCandidates: defaultWaveCandidates, ctaKeys: ctaTopKKeys,
		stepCands: andStepCands, skipBlocks: skipCapBlocks, topk: TopKRadix, spare: make(chan *workspace, workspaces)}
	for i := range workspaces {
		e.spare <- &workspace{lane: i}
	}
	p := ix.BM25()
	e.k1p1 = math.Float32bits(p.K1 + 1)
	var err error
	if e.norms, err = e.alloc(4 * int64(len(ix.Norms()))); err == nil {
		err = e.be.upload(e.norms, bytesOf(ix.Norms()))
	}
	if err != nil {
		e.release()
		return nil, err
	}
	return e, nil
}

func (e *qengine) alloc(size int64) (devPtr, error) {
	p, err := e.be.alloc(max(size, 16))
	if err != nil {
		return 0, err
	}
	e.owned = append(e.owned, p)
	return p, nil
}

// release frees every device allocation, after the searches in flight;
// it is safe to call twice.
func (e *qengine) release() error {
	e.life.Lock()
	defer e.life.Unlock()
	if e.released {
		return nil
	}
	e.released = true
	ptrs := e.owned
	for range workspaces {
		ws := <-e.spare // every one is back: no search is in flight
		ptrs = append(ptrs, ws.scratch, ws.out)
	}
	e.owned = nil
	return errors.Join(freeAll(e.be, ptrs...), e.cols.drop())
}

// grow makes *p at least size bytes (with headroom), freeing the old block.
func (e *qengine) grow(p *devPtr, have *int64, size int64) error {
	if size <= *have {
		return nil
	}
	size += size / 4
	if *p != 0 {
		if err := e.be.free(*p); err != nil {
			return err
		}
		*p, *have = 0, 0
	}
	np, err := e.be.alloc(size)
	if err != nil {
		return err
	}
	*p, *have = np, size
	return nil
}

// carve lays regions out one after another, 256-byte aligned.
type carve struct {
	base devPtr
	off  int64
}

func (c *carve) take(size int64) devPtr {
	p := c.base + devPtr(c.off)
	c.off += (max(size, 16) + 255) &^ 255
	return p
}

// qjob is one query pass on the device and, after the run, what came back.
type qjob struct {
	plan   qplan
	state  []uint32
	keys   []uint64
	phases Phases
	// steps is the number of step words of an AND pass's state: counts
	// after each list, then the blocks selected in each (its wave's most
	// lists).
	steps int
}

// scratch is the device scratch of a single OR pass: the accumulators,
// the max-tree's first level, one list's decoded docids and frequencies,
// the boundary keys (ping-pong) and one histogram per radix round; and the
// size of its slot: state words, then results.
type scratch struct {
	docs, freqs, acc, hist, lvl1 devPtr
	bnd                          [2]devPtr
	bndCap, accN                 int64
	resultCap, hdrWords          int
}

// accN is the length of one query's accumulators: the documents, rounded
// up to the float4 the top-k kernels read.
// fusable reports whether a pass alone may run on the kernels that
// decode inside them (and_first, and_stepdec, or_first): they decode
// both columns with one format's decoder.
func (e *qengine) fusable() bool { return !e.unfused && e.docCol.stem == e.freqCol.stem }

func (e *qengine) accN() int64 { return (int64(e.docs) + 3) &^ 3 }

// layout places the scratch of OR plan p from base; the carve's offset is
// then its size.
func (e *qengine) layout(p *qplan, base devPtr) (scratch, int64) {
	c := carve{base: base}
	s := scratch{hdrWords: sSteps, accN: e.accN()}
	s.acc = c.take(4 * s.accN)
	s.hist = c.take(4 * int64(len(digitBits)) << qHistBits)
	s.lvl1 = c.take(8 * treeGroups(int64(e.docs)))
	var longest int64
	for _, l := range p.lists {
		longest = max(longest, int64(l.nb))
	}
	s.docs, s.freqs = c.take(4*longest*int64(e.bs)), c.take(4*longest*int64(e.bs))
	candidates := min(int64(e.docs), int64(p.postings()))
	s.bndCap = max(candidates, 1)
	s.bnd[0], s.bnd[1] = c.take(8*s.bndCap), c.take(8*s.bndCap)
	s.resultCap = int(min(int64(p.k), candidates))
	return s, c.off
}

// slotBytes is the size of a pass's slot in the results buffer: its state
// words, then its result keys.
func (s *scratch) slotBytes() int64 {
	return s.hdrBytes() + 8*int64(max(s.resultCap, 1))
}

func (s *scratch) hdrBytes() int64 { return (4*int64(s.hdrWords) + 255) &^ 255 }

// qtimer labels the intervals between timing marks with phases.
type qtimer struct {
	on     bool
	labels []Phase // label of the interval that starts at each mark; -1: not counted
}

func (t *qtimer) begin(s stream, p Phase) error {
	if !t.on {
		return nil
	}
	t.labels = append(t.labels, p)
	return s.mark()
}

// phaseStep is one enqueue of a launch sequence and the phase it is
// timed under (-1: not counted).
type phaseStep struct {
	phase Phase
	run   func() error
}

// runSteps enqueues steps in order on s, marking the start of each run
// of steps of one phase.
func (t *qtimer) runSteps(s stream, steps []phaseStep) error {
	for i, st := range steps {
		if i == 0 || st.phase != steps[i-1].phase {
			if err := t.begin(s, st.phase); err != nil {
				return err
			}
		}
		if err := st.run(); err != nil {
			return err
		}
	}
	return nil
}

func (t *qtimer) phases(s stream) (Phases, error) {
	var ph Phases
	if !t.on {
		return ph, nil
	}
	d, err := s.elapsed()
	if err != nil {
		return ph, err
	}
	for i, dt := range d {
		if i < len(t.labels) && t.labels[i] >= 0 {
			ph[t.labels[i]] += dt
		}
	}
	return ph, nil
}

// gridFor is the grid of a grid-stride launch over n elements.
func (e *qengine) gridFor(n int64) int { return gridFor(e.gridCap, n) }

// initGrid is q_init's grid for w slots (or segments, if more), zeroWords
// words to zero and rows rows to list: a CTA per slot or segment, and
// enough for about 16 words a thread and a row a thread.
func (e *qengine) initGrid(w, zeroWords, rows int64) int {
	return int(max(w, int64(e.gridFor((zeroWords+15)/16)), int64(e.gridFor(rows))))
}

// sizeClass rounds n up to a power of two, at least 16. A query alone
// sizes its scratch regions, grids and counts by the classes of its sizes,
// so that the queries of one class launch with the same parameters and
// their CUDA graph needs no patch (internal/cuda.Graph).
func sizeClass(n int64) int64 {
	c := int64(16)
	for c < n {
		c <<= 1
	}
	return c
}

// gridFor is the grid of a grid-stride launch over n elements, TILE per
// CTA, at most gridCap CTAs.
func gridFor(gridCap int, n int64) int {
	return int(max(1, min(int64(gridCap), (n+qTile-1)/qTile)))
}

// decode launches a decode kernel over nblocks blocks of col: the range
// from first, or the ids at sel (entries past the real selection hold
// NONE, which the kernel skips).
func (e *qengine) decode(s stream, col *devColumn, docids bool, first uint32, sel devPtr, nblocks int64, out devPtr) error {
	if nblocks == 0 {
		return nil
	}
	name := "decode_" + col.stem + "_gaps"
	if docids {
		name = "decode_" + col.stem + "_docids"
	}
	grid := int((nblocks + decodeWarps - 1) / decodeWarps)
	return s.launch(name, grid, 32*decodeWarps, uint64(col.data), col.dataLen, uint64(col.offs), uint64(col.counts),
		uint64(col.bases), uint64(sel), uint64(first), uint64(nblocks), uint64(col.blocks), uint64(out), uint64(e.bs))
}

// decodeBoth launches the decoders of both columns over the same
// nblocks blocks (as decode takes them), docids to docs and frequencies to
// freqs: one launch when the columns share a format (decodepair_<stem>),
// else one each.
func (e *qengine) decodeBoth(s stream, first uint32, sel devPtr, nblocks int64, docs, freqs devPtr) error {
	if nblocks == 0 {
		return nil
	}
	d, f := &e.docCol, &e.freqCol
	if d.stem != f.stem {
		if err := e.decode(s, d, true, first, sel, nblocks, docs); err != nil {
			return err
		}
		return e.decode(s, f, false, first, sel, nblocks, freqs)
	}
	grid := 2 * int((nblocks+decodeWarps-1)/decodeWarps)
	return s.launch("decodepair_"+d.stem, grid, 32*decodeWarps, uint64(d.data), d.dataLen, uint64(d.offs),
		uint64(d.counts), uint64(d.bases), uint64(d.blocks), uint64(f.data), f.dataLen, uint64(f.offs), uint64(f.counts),
		uint64(f.blocks), uint64(sel), uint64(first), uint64(nblocks), uint64(docs), uint64(freqs), uint64(e.bs))
}

func (e *qengine) enqueueOr(s stream, p *qplan, sc *scratch, slot devPtr, tm *qtimer) error {
	// The accumulators and histograms lie end to end (layout): q_init
	// zeroes them.
	zero := int64(sc.hist-sc.acc)/4 + int64(len(digitBits))<<qHistBits
	if err := launchQInit(s, e.initGrid(1, zero, 0), qTile, slot, 0, uint64(sc.hdrWords), 0, uint64(sc.resultCap), none32,
		0, 1, sc.acc, uint64(zero), 0, 0, 0, 0, 0); err != nil {
		return err
	}
	for _, q := range p.pos {
		l := p.lists[q.list]
		if err := tm.begin(s, PhaseDecode); err != nil {
			return err
		}
		if err := e.decodeBoth(s, l.first, 0, int64(l.nb), sc.docs, sc.freqs); err != nil {
			return err
		}
		if err := tm.begin(s, PhaseScore); err != nil {
			return err
		}
		if err := launchOrScore(s, e.gridFor(int64(l.df)), qTile, sc.docs, sc.freqs, uint64(l.df),
			uint64(math.Float32bits(q.idf)), uint64(e.k1p1), e.norms, sc.acc); err != nil {
			return err
		}
	}
	if err := tm.begin(s, PhaseTopK); err != nil {
		return err
	}
	if e.topk == TopKTree && treeGroups(int64(e.docs)) <= treeGroup*treeRuns {
		return e.topKTree(s, sc, slot)
	}
	return e.denseTopK(s, denseRound{w: 1, acc: sc.acc, accN: sc.accN, hist: sc.hist, out: slot, hdr: sc.hdrBytes(),
		resultCap: sc.resultCap, bnd: sc.bnd[0], bndCap: sc.bndCap})
}

// denseRound is round 0 of the radix select over the dense accumulators
// of w queries (one for a single pass, a wave's otherwise): query q's
// accumulators start at acc + q*accN floats, its histogram at hist +
// q<<qHistBits words, its slot at out + q*slot bytes (state words, then
// its result hdr bytes on, room for resultCap keys), its boundary at bnd +
// q*bndCap keys.
type denseRound struct {
	w                   int
	acc, hist, out, bnd devPtr
	accN, slot, hdr     int64
	bndCap              int64
	resultCap           int
}

// denseTopK queues a denseRound: the dense passes run gx CTAs per query,
// about two grids' worth in all.
func (e *qengine) denseTopK(s stream, r denseRound) error {
	n, w := uint64(e.docs), uint64(r.w)
	gx := uint64(max(1, min(e.gridFor((int64(n)+3)/4), (2*e.gridCap+r.w-1)/r.w)))
	shift, bits := digitShift[0], digitBits[0]
	slot, result := uint64(r.slot), r.out+devPtr(r.hdr)
	if err := launchTopkHistDense(s, int(w*gx), qTile, r.acc, n, uint64(r.accN), shift, bits, r.out, slot, r.hist,
		1<<qHistBits, gx); err != nil {
		return err
	}
	if err := launchTopkPick(s, r.w, qBig, r.hist, 1<<qHistBits, bits, 0, r.out, slot); err != nil {
		return err
	}
	if err := launchTopkCompactDense(s, int(w*gx), qTile, r.acc, n, uint64(r.accN), shift, bits, 0, r.out, slot, result,
		uint64(r.resultCap), r.bnd, uint64(r.bndCap), gx); err != nil {
		return err
	}
	return launchTopkFinish(s, r.w, qBig, 0, r.bnd, uint64(r.bndCap), r.out, slot, result, uint64(r.resultCap))
}

// refine queues round r of the radix select over the previous round's
// boundary.
func (e *qengine) refine(s stream, sc *scratch, slot devPtr, r int) error {
	state, result := slot, slot+devPtr(sc.hdrBytes())
	shift, bits := digitShift[r], digitBits[r]
	src, dst := sc.bnd[(r-1)&1], sc.bnd[r&1]
	count := state + devPtr(4*(sBC0+(r-1)&1))
	hist := sc.hist + devPtr(r*4<<qHistBits)
	grid := e.gridFor(sc.bndCap)
	if err := launchTopkHistKeys(s, grid, qTile, src, count, shift, bits, state, hist); err != nil {
		return err
	}
	if err := launchTopkPick(s, 1, qBig, hist, 0, bits, uint64(r), state, 0); err != nil {
		return err
	}
	if err := launchTopkCompactKeys(s, grid, qTile, src, count, shift, bits, uint64(r), state, result,
		uint64(sc.resultCap), dst, uint64(sc.bndCap)); err != nil {
		return err
	}
	return launchTopkFinish(s, 1, qBig, uint64(r), dst, uint64(sc.bndCap), state, 0, result, uint64(sc.resultCap))
}

// run executes the passes: AND passes in waves (runAnd), OR passes in
// waves (runWaves; a pass alone too, as a wave of one, when the index has
// at least a span of documents per multiprocessor: its launch sequence is
// a third of runOr's and reads no dense accumulators, but with fewer spans
// than multiprocessors or_span_wave leaves the GPU idle), and otherwise,
// with the max-tree top-k, or when a wave's top-k needs more than its one
// radix round, one by one over dense accumulators (runOr). With timing, a
// single pass's phases are measured.
func (e *qengine) run(ws *workspace, jobs []*qjob, timing bool) error {
	var and, or []*qjob
	for _, j := range jobs {
		if j.plan.and {
			and = append(and, j)
		} else {
			or = append(or, j)
		}
	}
	timing = timing && len(jobs) == 1
	if err := e.runAnd(ws, and, timing); err != nil {
		return err
	}
	spans := (e.docs + orSpan - 1) / orSpan
	if len(or) > 1 || (len(or) == 1 && e.topk != TopKTree && spans >= e.gridCap/8) {
		var err error
		if or, err = e.runWaves(ws, or, timing); err != nil {
			return err
		}
	}
	for _, j := range or {
		if err := e.runOr(ws, j, timing); err != nil {
			return err
		}
	}
	return nil
}

// runOr answers one OR pass over dense accumulators.
func (e *qengine) runOr(ws *workspace, j *qjob, timing bool) error {
	sc, size := e.layout(&j.plan, 0)
	if err := e.grow(&ws.scratch, &ws.scrSize, size); err != nil {
		return err
	}
	if err := e.grow(&ws.out, &ws.outSize, sc.slotBytes()); err != nil {
		return err
	}
	sc, _ = e.layout(&j.plan, ws.scratch)
	buf := ws.slots(sc.slotBytes())
	return e.be.run(ws.lane, func(s stream) error {
		tm := qtimer{on: timing}
		if err := tm.begin(s, PhaseInit); err != nil {
			return err
		}
		if err := e.enqueueOr(s, &j.plan, &sc, ws.out, &tm); err != nil {
			return err
		}
		return e.finish(s, j, &sc, ws.out, buf, &tm)
	})
}

// finish reads back the slot of a pass queued alone, runs its top-k's
// further radix rounds in place until it is done, and sets its phases
// when timed.
func (e *qengine) finish(s stream, j *qjob, sc *scratch, slot devPtr, buf []byte, tm *qtimer) error {
	if err := tm.begin(s, -1); err != nil {
		return err
	}
	if err := s.download(buf, slot); err != nil {
		return err
	}
	j.readSlot(buf, sc)
	for r := 1; j.state[sDone] == 0; r++ {
		if r >= len(digitBits) {
			return fmt.Errorf("gpu: top-k select did not converge after %d rounds", r)
		}
		if err := tm.begin(s, PhaseTopK); err != nil {
			return err
		}
		if err := e.refine(s, sc, slot, r); err != nil {
			return err
		}
		if err := tm.begin(s, -1); err != nil {
			return err
		}
		if err := s.download(buf, slot); err != nil {
			return err
		}
		j.readSlot(buf, sc)
	}
	var err error
	j.phases, err = tm.phases(s)
	return err
}

// readSlot decodes a downloaded slot into the job's state and keys.
func (j *qjob) readSlot(slot []byte, sc *scratch) {
	j.state = make([]uint32, sc.hdrWords)
	for w := range j.state {
		j.state[w] = binary.LittleEndian.Uint32(slot[4*w:])
	}
	n := min(int(j.state[sResult]), sc.resultCap)
	j.keys = make([]uint64, n)
	off := sc.hdrBytes()
	for i := range j.keys {
		j.keys[i] = binary.LittleEndian.Uint64(slot[off+8*int64(i):])
	}
}

// result turns a finished pass into hits and statistics.
func (j *qjob) result() query.Result {
	var res query.Result
	res.Hits = hitsFromKeys(j.keys)
	p := &j.plan
	if !p.and {
		res.Stats.Algorithm = "gpu-or"
		for _, l := range p.lists {
			res.Stats.BlocksDecoded += int64(l.nb)
			res.Stats.PostingsScored += int64(l.df)
		}
		return res
	}
	res.Stats.Algorithm = "gpu-and"
	res.Stats.BlocksDecoded = int64(p.lists[0].nb)
	for li := 1; li < len(p.lists); li++ {
		sel := int64(j.state[sSteps+j.steps+li])
		res.Stats.BlocksDecoded += sel
		res.Stats.BlocksSkipped += int64(p.lists[li].nb) - sel
	}
	res.Stats.PostingsScored = int64(j.state[sSteps+j.steps-1]) * int64(len(p.pos))
	return res
}

// search answers queries: a first wave of passes (AND for and and andor,
// OR for or), then OR passes for the andor queries whose AND found fewer
// than k hits. With timing, each single-pass run is timed by phase and
// phases holds their sum (meaningful for one query).
func (e *qengine) search(ctx context.Context, qs []query.Query, timing bool) ([]query.Result, Phases, error) {
	start := time.Now()
	var phases Phases
	if err := ctx.Err(); err != nil {
		return nil, phases, err
	}
	for _, q := range qs {
		if _, err := query.ParseMode(string(q.Mode)); err != nil {
			return nil, phases, fmt.Errorf("gpu: %w", err)
		}
		if len(q.Phrases) > 0 {
			return nil, phases, fmt.Errorf("gpu: phrase %q: %w", q.Phrases[0], query.ErrPhraseUnsupported)
		}
	}
	res := make([]query.Result, len(qs))
	waves := [2][]*qjob{make([]*qjob, len(qs)), make([]*qjob, len(qs))}
	plan := func(w int, modeOf func(query.Mode) query.Mode) []*qjob {
		var todo []*qjob
		for i, q := range qs {
			if w == 1 && (q.Mode != query.AndOr || len(res[i].Hits) >= q.K) {
				continue
			}
			if p, ok := planQuery(e.ix, q, modeOf(q.Mode)); ok {
				waves[w][i] = &qjob{plan: p}
				todo = append(todo, waves[w][i])
			}
		}
		return todo
	}
	first := func(m query.Mode) query.Mode {
		if m == query.AndOr {
			return query.And
		}
		return m
	}
	todo := plan(0, first)
	e.life.RLock()
	defer e.life.RUnlock()
	if e.released {
		return nil, phases, ErrClosed
	}
	ws, err := e.takeWorkspace(ctx)
	if err != nil {
		return nil, phases, err
	}
	defer func() { e.spare <- ws }()
	for w := range waves {
		if w == 1 {
			todo = plan(1, func(query.Mode) query.Mode { return query.Or })
		}
		if len(todo) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, phases, err
		}
		if err := e.runCached(ws, todo, timing); err != nil {
			return nil, phases, err
		}
		for i, j := range waves[w] {
			if j == nil {
				continue
			}
			for p, d := range j.phases {
				phases[p] += d
			}
			r := j.result()
			if w == 1 {
				and := res[i].Stats
				r.Stats.Algorithm = "gpu-and+or"
				r.Stats.PostingsScored += and.PostingsScored
				r.Stats.BlocksDecoded += and.BlocksDecoded
				r.Stats.BlocksSkipped += and.BlocksSkipped
			}
			res[i] = r
		}
	}
	took := time.Since(start)
	for i, q := range qs {
		if res[i].Stats.Algorithm == "" {
			res[i].Stats.Algorithm = "gpu-" + string(q.Mode)
		}
		res[i].Stats.Took = took
	}
	return res, phases, nil
}
