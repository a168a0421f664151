package gpu

import "math"

// defaultWaveCandidates bounds a wave of AND passes: the candidates of
// their shortest lists, counted in whole blocks. A candidate takes about
// 44 + 8m bytes of scratch (m: the wave's most lists).
const defaultWaveCandidates = 4 << 20

// runAnd answers AND passes in waves, as many passes a wave as
// waveCandidates allows (see "AND" in kernels/query.cu). A pass alone in
// its wave runs its top-k's further radix rounds in place; one whose wave
// held others and whose top-k needs them (rare: a boundary of over
// FIN_CAP keys) runs again alone. With timing, a pass alone is timed by
// phase.
func (e *qengine) runAnd(ws *workspace, jobs []*qjob, timing bool) error {
	for len(jobs) > 0 {
		n, cands := 0, int64(0)
		for ; n < len(jobs); n++ {
			c := int64(jobs[n].plan.lists[0].nb) * int64(e.bs)
			if n > 0 && cands+c > e.waveCandidates {
				break
			}
			cands += c
		}
		redo, err := e.andWave(ws, jobs[:n], timing)
		if err != nil {
			return err
		}
		for _, j := range redo {
			if _, err := e.andWave(ws, []*qjob{j}, false); err != nil {
				return err
			}
		}
		jobs = jobs[n:]
	}
	return nil
}

// andTable is a wave's table of AND passes, as AndWave in
// kernels/query.cu reads it, and the sizes of the wave's scratch.
type andTable struct {
	words   []uint32
	w, m    int64 // queries, most lists
	rows    int64 // blocks of the shortest lists: the wave's elements are rows * bs
	tiles   int64 // TILE-element tiles of the shortest lists' postings
	selRows int64 // rows of the steps' selections
	maxN1   int64 // postings of the longest shortest list
	// A pass alone rounds rows, tiles, selRows, maxN1 and resultCap up to
	// their size class (sizeClass), and its table's length too (tabWords),
	// for the scratch, the grids and the counts its launches take.
	tabWords int64
	// small: a pass alone of at most stepCands candidates and two lists or
	// more, whose steps run as and_select_rows and and_step_cta (see "A
	// query alone of few candidates" in kernels/query.cu); its selection
	// has a row per candidate.
	small bool
	// fused: a small pass whose columns share a format and whose top-k
	// ends in one round, run as and_first_<stem> and and_stepdec_<stem>
	// (see "fused with its decodes" in kernels/query.cu); its table is
	// padded to tabWords, the last word the kernels' ticket, uploaded as 0.
	fused bool
	scs   []scratch
	// resultCap is the most results of a query; a slot is slotSize bytes,
	// its results from hdr on.
	resultCap     int
	slotSize, hdr int64
}

// Word offsets of the table's parts that kernels other than the AND
// steps' read (see and_wave): per query, its need, its shortest list's
// postings, where its elements start, and rows0 (W+1 words) and the
// shortest lists' first blocks, for q_init's rows.
func andNeeds(w int64) int64  { return 0 }
func andN1(w int64) int64     { return w }
func andCand(w int64) int64   { return 2 * w }
func andRows0(w int64) int64  { return 4 * w }
func andFirst0(w int64) int64 { return 8*w + 4 }

func (e *qengine) andTable(jobs []*qjob) *andTable {
	w := int64(len(jobs))
	t := &andTable{w: w, m: 1, scs: make([]scratch, w), resultCap: 1}
	for _, j := range jobs {
		t.m = max(t.m, int64(len(j.plan.lists)))
	}
	bs := int64(e.bs)
	perQuery := func() []uint32 { return make([]uint32, w) }
	prefix := func() []uint32 { return make([]uint32, w+1) }
	needs, n1, cand, ms := perQuery(), perQuery(), perQuery(), perQuery()
	rows0, tile, sel, pos := prefix(), prefix(), prefix(), prefix()
	first, nb := make([]uint32, t.m*w), make([]uint32, t.m*w)
	var plist, pidf []uint32
	for q, j := range jobs {
		p := &j.plan
		l0 := p.lists[0]
		df := int64(l0.df)
		rc := int(min(int64(p.k), df))
		needs[q], n1[q], cand[q], ms[q] = uint32(rc), uint32(df), rows0[q]*uint32(bs), uint32(len(p.lists))
		rows0[q+1] = rows0[q] + uint32(l0.nb)
		tile[q+1] = tile[q] + uint32((df+qTile-1)/qTile)
		var selCap int64
		for li, l := range p.lists {
			first[int64(li)*w+int64(q)], nb[int64(li)*w+int64(q)] = l.first, uint32(l.nb)
			if li > 0 {
				selCap = max(selCap, min(int64(l.nb), df))
			}
		}
		sel[q+1] = sel[q] + uint32(selCap)
		for _, ps := range p.pos {
			plist, pidf = append(plist, uint32(ps.list)), append(pidf, math.Float32bits(ps.idf))
		}
		pos[q+1] = uint32(len(plist))
		t.maxN1 = max(t.maxN1, df)
		t.scs[q] = scratch{hdrWords: sSteps + 2*int(t.m), resultCap: rc}
		t.resultCap = max(t.resultCap, rc)
	}
	for _, part := range [][]uint32{needs, n1, cand, ms, rows0, tile, sel, pos, first, nb, plist, pidf} {
		t.words = append(t.words, part...)
	}
	t.rows, t.tiles, t.selRows = int64(rows0[w]), int64(tile[w]), int64(sel[w])
	if w == 1 {
		t.rows, t.tiles, t.selRows = sizeClass(t.rows), sizeClass(t.tiles), sizeClass(t.selRows)
		t.maxN1 = sizeClass(t.maxN1)
		t.resultCap = int(sizeClass(int64(t.resultCap)))
		t.scs[0].resultCap = t.resultCap
		if t.small = t.m > 1 && t.maxN1 <= e.stepCands; t.small {
			t.selRows = max(t.selRows, t.maxN1)
		}
		// At most FIN_CAP keys: cta_topk ends the top-k, so no radix round
		// needs the histograms q_init zeroes.
		t.fused = t.small && e.fusable() && t.maxN1 <= qFinCap
	}
	t.tabWords = int64(len(t.words))
	if w == 1 {
		if t.fused {
			t.tabWords++ // the ticket
		}
		t.tabWords = sizeClass(t.tabWords)
		if t.fused {
			// The ticket is the size class's last word, zero as the rest of
			// the padding that the upload brings: passes of one class
			// launch with the same parameters, so their graph is not
			// patched.
			t.words = append(t.words, make([]uint32, t.tabWords-int64(len(t.words)))...)
		}
	}
	t.hdr = t.scs[0].hdrBytes()
	t.slotSize = t.hdr + 8*int64(t.resultCap)
	return t
}

// andScratch is a wave's scratch: the table; candidates and their freq-1
// in every list so far (ping-pong); each candidate's block, row and place
// in its row; tile counts and offsets; the selected blocks and their
// decoded docids and frequencies; keys; histograms and boundaries.
type andScratch struct {
	tab, blk, row, at, tileCounts, tileOffsets, sel, docs, freqs, keys, hist devPtr
	ticket                                                                   devPtr
	cand, fm1, bnd                                                           [2]devPtr
	bndCap, histWords                                                        int64
	// zeroWords words from hist on are what q_init zeroes: the histograms
	// and the ticket right after them.
	zeroWords int64
}

// layout places the scratch of t from base and returns its size. A pass
// alone gets a histogram per radix round and two boundaries as large as
// its candidates, for the rounds after the first; a wave's queries one
// histogram and FIN_CAP keys of boundary each. The table, histograms and
// ticket come first, so that the regions of a pass alone depend on its
// size classes only.
func (t *andTable) layout(base devPtr, bs int64) (andScratch, int64) {
	c := carve{base: base}
	var s andScratch
	n := t.rows * bs
	s.tab = c.take(4 * t.tabWords)
	if t.w == 1 {
		s.histWords = int64(len(digitBits)) << qHistBits
	} else {
		s.histWords = t.w << qHistBits
	}
	s.hist = c.take(4 * s.histWords)
	s.ticket = c.take(4)
	s.zeroWords = int64(s.ticket-s.hist)/4 + 1
	for i := range 2 {
		s.cand[i] = c.take(4 * n)
		s.fm1[i] = c.take(4 * t.m * n)
	}
	s.blk, s.row, s.at = c.take(4*n), c.take(4*n), c.take(4*n)
	s.tileCounts, s.tileOffsets = c.take(4*t.tiles), c.take(4*t.tiles)
	s.sel = c.take(4 * max(t.rows, t.selRows))
	s.docs, s.freqs = c.take(4*t.selRows*bs), c.take(4*t.selRows*bs)
	s.keys = c.take(8 * n)
	if t.w == 1 {
		s.bndCap = max(t.maxN1, 1)
		s.bnd[0], s.bnd[1] = c.take(8*s.bndCap), c.take(8*s.bndCap)
	} else {
		s.bndCap = qFinCap
		s.bnd[0] = c.take(8 * t.w * s.bndCap)
	}
	return s, c.off
}

// scorePhase is the phase of a step's compaction: PhaseScore when it
// scores, else PhaseIntersect.
func scorePhase(scores bool) Phase {
	if scores {
		return PhaseScore
	}
	return PhaseIntersect
}

// andWave runs AND passes as one launch sequence and returns those whose
// top-k needs more than round 0 (none when the wave holds one pass: its
// rounds run in place).
func (e *qengine) andWave(ws *workspace, jobs []*qjob, timing bool) ([]*qjob, error) {
	t := e.andTable(jobs)
	for _, j := range jobs {
		j.steps = int(t.m)
	}
	bs := int64(e.bs)
	_, size := t.layout(0, bs)
	if err := e.grow(&ws.scratch, &ws.scrSize, size); err != nil {
		return nil, err
	}
	if err := e.grow(&ws.out, &ws.outSize, t.w*t.slotSize); err != nil {
		return nil, err
	}
	sc, _ := t.layout(ws.scratch, bs)
	buf := ws.slots(t.w * t.slotSize)
	tab, w, m, n := sc.tab, uint64(t.w), uint64(t.m), uint64(t.rows*bs)
	word := func(part int64) devPtr { return tab + devPtr(4*part) }
	out, slot := ws.out, uint64(t.slotSize)
	alone := t.w == 1
	grid := e.gridFor(t.tiles * qTile)
	// A pass alone hands each kernel's follow-up work to its last CTA
	// (ticket): the scans after and_select and and_intersect, the pick
	// after the keys, the finish after the top-k's compaction. A wave's
	// queries scan one CTA each in and_scan.
	var ticket devPtr
	if alone {
		ticket = sc.ticket
	}
	// A pass alone of few candidates ends its top-k in the last CTA of the
	// kernel that scores (cta_topk in kernels/query.cu) instead of in the
	// top-k kernels. result, not 0, says so to that kernel.
	oneCTA := alone && (t.small || t.maxN1 <= e.ctaKeys)
	var result devPtr
	if oneCTA {
		result = ws.out + devPtr(t.hdr)
	}
	resultCap := uint64(t.resultCap)
	var redo []*qjob
	err := e.be.run(ws.lane, func(s stream) error {
		tm := qtimer{on: timing && alone}
		if t.fused {
			return e.runFused(s, t, &sc, jobs[0], ws, buf, result, &tm)
		}
		steps := []phaseStep{
			{PhaseInit, func() error { return s.upload(sc.tab, bytesOf(t.words)) }},
			{PhaseInit, func() error {
				return launchQInit(s, e.initGrid(t.w, sc.zeroWords, t.rows), qTile, out, slot, uint64(t.scs[0].hdrWords),
					word(andNeeds(t.w)), 0, sSteps, word(andN1(t.w)), w, sc.hist, uint64(sc.zeroWords),
					word(andRows0(t.w)), word(andFirst0(t.w)), w, sc.sel, uint64(t.rows))
			}},
			{PhaseDecode, func() error { return e.decodeBoth(s, 0, sc.sel, t.rows, sc.cand[0], sc.fm1[0]) }},
		}
		for li := uint64(1); li < m && t.small; li++ {
			a, b := (li-1)&1, li&1
			if li == 1 {
				steps = append(steps, phaseStep{PhaseSelection, func() error {
					return launchAndSelectRows(s, grid, qTile, tab, m, li, sc.cand[a], out, e.lastDoc, sc.blk, sc.sel,
						uint64(t.selRows), sc.row, uint64(e.skipBlocks))
				}})
			}
			// The last step's kernel also scores and ends the top-k.
			steps = append(steps,
				phaseStep{PhaseDecode, func() error { return e.decodeBoth(s, 0, sc.sel, t.selRows, sc.docs, sc.freqs) }},
				phaseStep{scorePhase(li == m-1), func() error {
					return launchAndStepCta(s, 1, qBig, tab, m, li, sc.cand[a], out, sc.blk, sc.row, sc.sel,
						uint64(t.selRows), sc.docs, sc.freqs, e.docCol.counts, uint64(bs), e.lastDoc, sc.fm1[a], sc.fm1[b], n,
						sc.cand[b], e.norms, uint64(e.k1p1), sc.keys, digitShift[0], digitBits[0], result, resultCap,
						sc.bnd[0], uint64(sc.bndCap), uint64(e.skipBlocks))
				}},
			)
		}
		for li := uint64(1); li < m && !t.small; li++ {
			a, b := (li-1)&1, li&1
			steps = append(steps,
				phaseStep{PhaseSelection, func() error {
					return launchAndSelect(s, grid, qTile, tab, w, m, li, sc.cand[a], out, slot, e.lastDoc, sc.blk, sc.tileCounts,
						sc.sel, uint64(t.selRows), sc.tileOffsets, ticket)
				}},
			)
			if !alone {
				steps = append(steps, phaseStep{PhaseSelection, func() error {
					return launchAndScan(s, int(w), qBig, tab, w, m, li, out, slot, sc.tileCounts, sc.tileOffsets, sSteps+m+li, 0)
				}})
			}
			steps = append(steps,
				phaseStep{PhaseSelection, func() error {
					return launchAndScatterBlocks(s, grid, qTile, tab, w, m, li, sc.cand[a], out, slot, e.lastDoc, sc.blk,
						sc.tileOffsets, sc.sel, sc.row)
				}},
				phaseStep{PhaseDecode, func() error { return e.decodeBoth(s, 0, sc.sel, t.selRows, sc.docs, sc.freqs) }},
				phaseStep{PhaseIntersect, func() error {
					return launchAndIntersect(s, grid, qTile, tab, w, m, li, sc.cand[a], out, slot, sc.blk, sc.row, sc.docs,
						e.docCol.counts, uint64(bs), sc.at, sc.tileCounts, sc.tileOffsets, ticket)
				}},
			)
			if !alone {
				steps = append(steps, phaseStep{PhaseIntersect, func() error {
					return launchAndScan(s, int(w), qBig, tab, w, m, li, out, slot, sc.tileCounts, sc.tileOffsets, sSteps+li, 1)
				}})
			}
			steps = append(steps,
				// The last step of a pass alone scores its survivors as it
				// compacts them (and_score's work, timed as the score).
				phaseStep{scorePhase(alone && li == m-1), func() error {
					var keys, res devPtr
					if alone && li == m-1 {
						keys, res = sc.keys, result
					}
					return launchAndScatterSurvivors(s, grid, qTile, tab, w, m, li, sc.cand[a], out, slot, sc.at, sc.row,
						sc.tileOffsets, sc.freqs, uint64(bs), sc.fm1[a], sc.fm1[b], n, sc.cand[b], e.norms, uint64(e.k1p1),
						keys, digitShift[0], digitBits[0], sc.hist, ticket, res, resultCap, sc.bnd[0], uint64(sc.bndCap))
				}},
			)
		}
		if !alone || m == 1 {
			steps = append(steps, phaseStep{PhaseScore, func() error {
				return launchAndScore(s, grid, qTile, tab, w, m, sc.cand[0], sc.cand[1], sc.fm1[0], sc.fm1[1], n, out, slot,
					e.norms, uint64(e.k1p1), sc.keys, digitShift[0], digitBits[0], sc.hist, ticket, result, resultCap,
					sc.bnd[0], uint64(sc.bndCap))
			}})
		}
		if !oneCTA {
			steps = append(steps, phaseStep{PhaseTopK, func() error {
				return e.waveTopK(s, waveRound{w: t.w, gx: e.waveGrid(t.maxN1, t.w), keys: sc.keys,
					keyOff: word(andCand(t.w)), keyCap: word(andN1(t.w)), countWord: sSteps + m - 1,
					out: ws.out, slot: t.slotSize, hdr: t.hdr, resultCap: t.resultCap, hist: sc.hist, bnd: sc.bnd[0],
					bndCap: sc.bndCap, ticket: ticket, picked: alone})
			}})
		}
		if err := tm.runSteps(s, steps); err != nil {
			return err
		}
		if alone {
			one := scratch{hdrWords: t.scs[0].hdrWords, resultCap: t.resultCap, hist: sc.hist, bnd: sc.bnd, bndCap: sc.bndCap}
			return e.finish(s, jobs[0], &one, ws.out, buf, &tm)
		}
		if err := s.download(buf, ws.out); err != nil {
			return err
		}
		for q, j := range jobs {
			j.readSlot(buf[int64(q)*t.slotSize:int64(q+1)*t.slotSize], &t.scs[q])
			if j.state[sDone] == 0 {
				redo = append(redo, j)
			}
		}
		return nil
	})
	return redo, err
}

// fusedRows is the rows (blocks of both columns) a CTA of a fused
// kernel decodes at a time, by kernel name stem: Fused<F>::ROWS in
// kernels/query.cu, for the grids.
var fusedRows = map[string]int64{"bp128": 16, "bp256": 16, "vbyte128": 16, "vbyte1024": 4, "pfordelta": 4, "rice": 4}

// fusedKernels names the kernels of kernels/query.cu that decode inside
// (and_first_<stem>, and_stepdec_<stem> and or_first_<stem>, made by its
// DEFINE_FUSED), which queryKernels, read from the plain declarations,
// leaves out.
func fusedKernels() []string {
	var names []string
	for _, stem := range kernels {
		names = append(names, "and_first_"+stem, "and_stepdec_"+stem, "or_first_"+stem)
	}
	return names
}

// runFused runs a fused pass alone (andTable.fused): the table's upload,
// and_first_<stem>, one and_stepdec_<stem> per list after the shortest,
// whose last scores and ends the top-k into result; then the download.
// Timed, and_first counts as the decode and each step as the intersection
// or, the last, the score.
func (e *qengine) runFused(s stream, t *andTable, sc *andScratch, j *qjob, ws *workspace, buf []byte, result devPtr,
	tm *qtimer) error {
	d, f := &e.docCol, &e.freqCol
	bs, m := int64(e.bs), uint64(t.m)
	rows := fusedRows[d.stem]
	tab, out := sc.tab, ws.out
	ticket := tab + devPtr(4*(t.tabWords-1))
	steps := []phaseStep{
		{PhaseInit, func() error { return s.upload(sc.tab, bytesOf(t.words)) }},
		{PhaseDecode, func() error {
			return s.launch("and_first_"+d.stem, int((t.rows+rows-1)/rows), qBig, uint64(tab), m, uint64(out),
				uint64(t.scs[0].hdrWords), uint64(d.data), d.dataLen, uint64(d.offs), uint64(d.counts), uint64(d.bases),
				uint64(d.blocks), uint64(f.data), f.dataLen, uint64(f.offs), uint64(f.counts), uint64(f.blocks),
				uint64(sc.cand[0]), uint64(sc.fm1[0]), uint64(bs), uint64(e.lastDoc), uint64(sc.blk), uint64(sc.sel),
				uint64(t.selRows), uint64(sc.row), uint64(e.skipBlocks), uint64(ticket))
		}},
	}
	n := uint64(t.rows * bs)
	for li := uint64(1); li < m; li++ {
		a, b := (li-1)&1, li&1
		steps = append(steps, phaseStep{scorePhase(li == m-1), func() error {
			return s.launch("and_stepdec_"+d.stem, int((t.selRows+rows-1)/rows), qBig, uint64(tab), m, li,
				uint64(sc.cand[a]), uint64(out), uint64(sc.blk), uint64(sc.row), uint64(sc.sel), uint64(t.selRows),
				uint64(sc.docs), uint64(sc.at), uint64(sc.freqs), uint64(bs), uint64(e.lastDoc), uint64(sc.fm1[a]),
				uint64(sc.fm1[b]), n, uint64(sc.cand[b]), uint64(e.norms), uint64(e.k1p1), uint64(sc.keys), digitShift[0],
				digitBits[0],
				uint64(result), uint64(t.resultCap), uint64(sc.bnd[0]), uint64(sc.bndCap), uint64(e.skipBlocks),
				uint64(d.data), d.dataLen, uint64(d.offs), uint64(d.counts), uint64(d.bases), uint64(d.blocks),
				uint64(f.data), f.dataLen, uint64(f.offs), uint64(f.counts), uint64(f.blocks), uint64(ticket))
		}})
	}
	if err := tm.runSteps(s, steps); err != nil {
		return err
	}
	one := scratch{hdrWords: t.scs[0].hdrWords, resultCap: t.resultCap, hist: sc.hist, bnd: sc.bnd, bndCap: sc.bndCap}
	return e.finish(s, j, &one, out, buf, tm)
}
