package gpu

import "math"

// defaultWavePostings bounds a wave of OR passes: the postings it decodes,
// counted in whole blocks (8 bytes each, docids and frequencies), which
// also bound its candidate keys (at most one per posting, 8 bytes each).
const defaultWavePostings = 64 << 20

// runWaves answers OR passes in waves, several queries per launch
// sequence (see "Waves" in kernels/query.cu), and returns those whose
// top-k needs more than a wave's one radix round, for the pass-by-pass
// path. With timing, a wave of one pass is timed by phase.
func (e *qengine) runWaves(ws *workspace, or []*qjob, timing bool) ([]*qjob, error) {
	var rest []*qjob
	for len(or) > 0 {
		n, postings := 0, int64(0)
		for ; n < len(or); n++ {
			p := int64(0)
			for _, l := range or[n].plan.lists {
				p += int64(l.nb) * int64(e.bs)
			}
			if n > 0 && postings+p > e.wavePostings {
				break
			}
			postings += p
		}
		redo, err := e.wave(ws, or[:n], timing)
		if err != nil {
			return nil, err
		}
		rest = append(rest, redo...)
		or = or[n:]
	}
	return rest, nil
}

// waveGrid is the CTAs per query of a wave's top-k kernels over at most
// keys keys a query: about two grids' worth in all.
func (e *qengine) waveGrid(keys, w int64) uint64 {
	return uint64(max(1, min(e.gridFor(keys), (2*e.gridCap+int(w)-1)/int(w))))
}

// waveRound is round 0 of the radix select over the keys of a wave's w
// queries, gx CTAs per query: query q's keys start at keys + keyOff[q]
// keys (keyOff and keyCap: w-word device arrays), at most keyCap[q] of
// them, counted at its state word countWord; its slot at out + q*slot
// bytes (state words, then its result hdr bytes on, room for resultCap
// keys), its histogram at hist + q<<qHistBits words, its boundary at bnd
// + q*bndCap keys. With a ticket (a zeroed word), the histogram's and the
// compaction's last CTAs pick and finish (see topk_hist_wave), two
// launches fewer: for a pass alone, whose one CTA each would otherwise
// wait for a launch of its own.
type waveRound struct {
	w                    int64
	gx                   uint64
	keys, keyOff, keyCap devPtr
	countWord            uint64
	out, hist, bnd       devPtr
	slot, hdr, bndCap    int64
	resultCap            int
	ticket               devPtr
	// picked: the kernel that wrote the keys also did the histogram and
	// the pick (and_score, or an AND pass alone's last compaction).
	picked bool
}

// waveTopK queues a waveRound.
func (e *qengine) waveTopK(s stream, r waveRound) error {
	shift, bits := digitShift[0], digitBits[0]
	slot, result := uint64(r.slot), r.out+devPtr(r.hdr)
	block, gx := qTile, r.gx
	if r.ticket != 0 {
		// The last CTA picks and finishes with as many threads as
		// topk_pick and topk_finish have; the others, four times
		// TILE threads, need a quarter of the CTAs.
		block, gx = qBig, (gx+3)/4
	}
	grid := int(uint64(r.w) * gx)
	if !r.picked {
		if err := launchTopkHistWave(s, grid, block, r.keys, r.keyOff, r.keyCap, r.countWord, shift, bits, r.out, slot,
			r.hist, 1<<qHistBits, gx, r.ticket); err != nil {
			return err
		}
	}
	if r.ticket == 0 {
		if err := launchTopkPick(s, int(r.w), qBig, r.hist, 1<<qHistBits, bits, 0, r.out, slot); err != nil {
			return err
		}
	}
	if err := launchTopkCompactWave(s, grid, block, r.keys, r.keyOff, r.keyCap, r.countWord, shift, bits, 0, r.out, slot,
		result, uint64(r.resultCap), r.bnd, uint64(r.bndCap), gx, r.ticket); err != nil {
		return err
	}
	if r.ticket != 0 {
		return nil
	}
	return launchTopkFinish(s, int(r.w), qBig, 0, r.bnd, uint64(r.bndCap), r.out, slot, result, uint64(r.resultCap))
}

// waveTable is what the host tells the device about a wave: its segments
// (one query's list at one position), query by query and position by
// position, and for each query its segments and candidate keys. The
// segments' rows, one per block to decode, follow in the same order
// (q_init lists them on the device).
type waveTable struct {
	segRow         []uint32 // per segment: first row (one more: the end)
	segFirst       []uint32 // per segment: the list's first block
	segIdf, segDf  []uint32 // per segment: idf bits, the list's postings
	qSeg           []uint32 // per query: first segment (one more: the end)
	needs          []uint32 // per query: keys its top-k selects
	keyOff, keyCap []uint32 // per query: where its keys start, how many fit
	scs            []scratch
	rows, keys     int64 // rows and keys of all queries
	maxKeys        int64 // keys of the largest query
	resultCap      int
	slotSize, hdr  int64
}

func (e *qengine) waveTable(jobs []*qjob) *waveTable {
	w, segs := len(jobs), 0
	for _, j := range jobs {
		segs += len(j.plan.pos)
	}
	t := &waveTable{segRow: make([]uint32, 0, segs+1), segFirst: make([]uint32, 0, segs),
		segIdf: make([]uint32, 0, segs), segDf: make([]uint32, 0, segs), qSeg: make([]uint32, 0, w+1),
		needs: make([]uint32, w), keyOff: make([]uint32, w), keyCap: make([]uint32, w), scs: make([]scratch, w),
		resultCap: 1}
	for q, j := range jobs {
		t.qSeg = append(t.qSeg, uint32(len(t.segIdf)))
		for _, pos := range j.plan.pos {
			l := j.plan.lists[pos.list]
			t.segRow = append(t.segRow, uint32(t.rows))
			t.segFirst = append(t.segFirst, l.first)
			t.segIdf = append(t.segIdf, math.Float32bits(pos.idf))
			t.segDf = append(t.segDf, uint32(l.df))
			t.rows += int64(l.nb)
		}
		// A document is touched by at least one posting.
		keys := min(int64(e.docs), int64(j.plan.postings()))
		t.keyOff[q], t.keyCap[q] = uint32(t.keys), uint32(keys)
		t.keys += keys
		t.maxKeys = max(t.maxKeys, keys)
		rc := int(min(int64(j.plan.k), keys))
		t.needs[q] = uint32(rc)
		t.scs[q] = scratch{hdrWords: sKeys + 1, resultCap: rc}
		t.resultCap = max(t.resultCap, rc)
	}
	t.qSeg = append(t.qSeg, uint32(len(t.segIdf)))
	t.segRow = append(t.segRow, uint32(t.rows))
	t.hdr = t.scs[0].hdrBytes()
	t.slotSize = t.hdr + 8*int64(t.resultCap)
	return t
}

// wave runs OR passes as one launch sequence and returns those whose
// top-k did not finish in round 0. With timing, a pass alone is timed by
// phase.
//
// A pass alone rounds its rows, keys, table and result capacity up to
// their size class (sizeClass), and the table and histograms come first in
// its scratch, so that passes of one class launch with the same
// parameters.
func (e *qengine) wave(ws *workspace, jobs []*qjob, timing bool) ([]*qjob, error) {
	w := int64(len(jobs))
	t := e.waveTable(jobs)
	rows, bs, segs, keyRoom := t.rows, int64(e.bs), int64(len(t.segIdf)), t.keys
	parts := [][]uint32{t.segRow, t.segFirst, t.qSeg, t.segIdf, t.segDf, t.needs, t.keyOff, t.keyCap}
	var table []uint32
	offs := make([]uint64, len(parts))
	for i, part := range parts {
		offs[i] = 4 * uint64(len(table))
		table = append(table, part...)
	}
	tabWords := int64(len(table))
	alone := w == 1
	if alone {
		rows, keyRoom, tabWords = sizeClass(rows), sizeClass(keyRoom), sizeClass(tabWords)
		t.maxKeys = sizeClass(t.maxKeys)
		t.resultCap = int(sizeClass(int64(t.resultCap)))
		t.scs[0].resultCap = t.resultCap
		t.slotSize = t.hdr + 8*int64(t.resultCap)
	}
	layout := func(base devPtr) (tab, sel, keys, hist, ticket, bnd, docs, freqs devPtr, size int64) {
		c := carve{base: base}
		tab = c.take(4 * tabWords)
		hist = c.take(4 * w << qHistBits)
		ticket = c.take(4)
		bnd = c.take(8 * w * qFinCap)
		sel = c.take(4 * rows)
		keys = c.take(8 * keyRoom)
		docs, freqs = c.take(4*rows*bs), c.take(4*rows*bs)
		return tab, sel, keys, hist, ticket, bnd, docs, freqs, c.off
	}
	_, _, _, _, _, _, _, _, size := layout(0)
	if err := e.grow(&ws.scratch, &ws.scrSize, size); err != nil {
		return nil, err
	}
	if err := e.grow(&ws.out, &ws.outSize, w*t.slotSize); err != nil {
		return nil, err
	}
	tab, sel, keys, hist, ticket, bnd, docs, freqs, _ := layout(ws.scratch)
	// q_init zeroes the histograms and the ticket after them; a pass alone
	// picks and finishes its top-k in the last CTAs (waveRound).
	zeroWords := int64(ticket-hist)/4 + 1
	if !alone {
		ticket = 0
	}
	at := func(part int) devPtr { return tab + devPtr(offs[part]) }
	segRow, segFirst, qSeg, segIdf, segDf, needs := at(0), at(1), at(2), at(3), at(4), at(5)
	keyOff, keyCap := at(6), at(7)
	buf := ws.slots(w * t.slotSize)
	slot := uint64(t.slotSize)
	spans := (int64(e.docs) + orSpan - 1) / orSpan
	gx := e.waveGrid(t.maxKeys, w)
	if alone {
		// Each span emits about need keys (span_cut): size the top-k's
		// grid by that rather than by the key capacity, most of which
		// stays empty.
		gx = e.waveGrid(min(t.maxKeys, spans*4*int64(t.resultCap)), 1)
	}
	// A pass alone whose spans emit few keys runs its whole top-k in
	// or_span_wave: its CTAs histogram the keys they emit, its last CTA
	// picks and ends the top-k (cta_topk in kernels/query.cu): two
	// launches fewer.
	oneCTA := alone && spans*int64(t.needs[0]) <= e.ctaKeys
	var spanTicket, result devPtr
	if oneCTA {
		spanTicket, result = ticket, ws.out+devPtr(t.hdr)
	}
	shift, bits := digitShift[0], digitBits[0]
	err := e.be.run(ws.lane, func(s stream) error {
		tm := qtimer{on: timing && alone}
		steps := []phaseStep{
			{PhaseInit, func() error { return s.upload(tab, bytesOf(table)) }},
			{PhaseInit, func() error {
				return launchQInit(s, e.initGrid(max(w, segs), zeroWords, rows), qTile, ws.out, slot, sKeys+1, needs, 0,
					none32, 0, uint64(w), hist, uint64(zeroWords), segRow, segFirst, uint64(segs), sel, uint64(rows))
			}},
			{PhaseDecode, func() error { return e.decodeBoth(s, 0, sel, rows, docs, freqs) }},
		}
		if d, f := &e.docCol, &e.freqCol; alone && e.fusable() {
			// q_init's work and the decode in one kernel (or_first in
			// kernels/query.cu), timed as the decode.
			steps[1] = phaseStep{PhaseDecode, func() error {
				r := fusedRows[d.stem]
				return s.launch("or_first_"+d.stem, int(max(1, (rows+r-1)/r)), qBig, uint64(ws.out), sKeys+1, uint64(needs),
					uint64(hist), uint64(zeroWords), uint64(segRow), uint64(segFirst), uint64(segs), uint64(d.data),
					d.dataLen, uint64(d.offs), uint64(d.counts), uint64(d.bases), uint64(d.blocks), uint64(f.data),
					f.dataLen, uint64(f.offs), uint64(f.counts), uint64(f.blocks), uint64(docs), uint64(freqs), uint64(bs))
			}}
			steps = steps[:2]
		}
		steps = append(steps,
			phaseStep{PhaseScore, func() error {
				return launchOrSpanWave(s, int(w*spans), qTile, docs, freqs, qSeg, segRow, segIdf, segDf, uint64(bs),
					uint64(e.k1p1), e.norms, uint64(spans), ws.out, slot, keys, keyOff, keyCap, needs, shift, bits,
					hist, result, uint64(t.resultCap), bnd, qFinCap, spanTicket)
			}})
		if !oneCTA {
			steps = append(steps, phaseStep{PhaseTopK, func() error {
				return e.waveTopK(s, waveRound{w: w, gx: gx, keys: keys, keyOff: keyOff, keyCap: keyCap, countWord: sKeys,
					out: ws.out, slot: t.slotSize, hdr: t.hdr, resultCap: t.resultCap, hist: hist, bnd: bnd, bndCap: qFinCap,
					ticket: ticket})
			}})
		}
		steps = append(steps, phaseStep{-1, func() error { return s.download(buf, ws.out) }})
		if err := tm.runSteps(s, steps); err != nil {
			return err
		}
		var err error
		if alone {
			jobs[0].phases, err = tm.phases(s)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var redo []*qjob
	for q, j := range jobs {
		sc := t.scs[q]
		j.readSlot(buf[int64(q)*t.slotSize:int64(q+1)*t.slotSize], &sc)
		if j.state[sDone] == 0 {
			redo = append(redo, j)
		}
	}
	return redo, nil
}
