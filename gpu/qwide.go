package gpu

import "math"

// Default limits of a wave of OR passes: its accumulators (4 bytes per
// document per query) and the postings it decodes (8 bytes each, docids
// and frequencies, counted in whole blocks).
const (
	defaultWaveAccBytes = 2 << 30
	defaultWavePostings = 64 << 20
)

// accN is the length of one query's accumulators: the documents, rounded
// up to the float4 the top-k kernels read.
func (e *qengine) accN() int64 { return (int64(e.docs) + 3) &^ 3 }

// runWaves answers the OR passes of a batch in waves, several queries per
// launch sequence (see "Waves" in kernels/query.cu), and returns the other
// passes, and the OR passes whose top-k needs more than a wave's one radix
// round, for the pass-by-pass path.
func (e *qengine) runWaves(jobs []*qjob) ([]*qjob, error) {
	var or, rest []*qjob
	for _, j := range jobs {
		if j.plan.and {
			rest = append(rest, j)
		} else {
			or = append(or, j)
		}
	}
	if len(or) < 2 {
		return jobs, nil
	}
	accBytes := 4 * e.accN()
	for len(or) > 0 {
		n, postings := 0, int64(0)
		for ; n < len(or); n++ {
			p := int64(0)
			for _, l := range or[n].plan.lists {
				p += int64(l.nb) * int64(e.bs)
			}
			if n > 0 && (int64(n+1)*accBytes > e.waveAccBytes || postings+p > e.wavePostings) {
				break
			}
			postings += p
		}
		redo, err := e.wave(or[:n])
		if err != nil {
			return nil, err
		}
		rest = append(rest, redo...)
		or = or[n:]
	}
	return rest, nil
}

// waveTable is what the host tells the device about a wave: the blocks to
// decode (one row each), grouped by query position, and for each row the
// segment (one query's list at one position) it scores for.
type waveTable struct {
	sel, rowSeg   []uint32 // per row: block id, segment
	segQ, segIdf  []uint32 // per segment: query in the wave, idf bits
	needs         []uint32 // per query: keys its top-k selects
	posRows       [][2]int64
	scs           []scratch // per query: its slot's shape
	resultCap     int
	slotSize, hdr int64
}

func (e *qengine) waveTable(jobs []*qjob) *waveTable {
	t := &waveTable{needs: make([]uint32, len(jobs)), scs: make([]scratch, len(jobs)), resultCap: 1}
	for p := 0; ; p++ {
		r0 := int64(len(t.sel))
		found := false
		for q, j := range jobs {
			if p >= len(j.plan.pos) {
				continue
			}
			found = true
			pos := j.plan.pos[p]
			l := j.plan.lists[pos.list]
			seg := uint32(len(t.segQ))
			t.segQ = append(t.segQ, uint32(q))
			t.segIdf = append(t.segIdf, math.Float32bits(pos.idf))
			for b := range uint32(l.nb) {
				t.sel = append(t.sel, l.first+b)
				t.rowSeg = append(t.rowSeg, seg)
			}
		}
		if !found {
			break
		}
		t.posRows = append(t.posRows, [2]int64{r0, int64(len(t.sel))})
	}
	for q, j := range jobs {
		rc := int(min(int64(j.plan.k), int64(e.docs), int64(j.plan.postings())))
		t.needs[q] = uint32(rc)
		t.scs[q] = scratch{hdrWords: sSteps, resultCap: rc}
		t.resultCap = max(t.resultCap, rc)
	}
	t.hdr = t.scs[0].hdrBytes()
	t.slotSize = t.hdr + 8*int64(t.resultCap)
	return t
}

// wave runs OR passes as one launch sequence and returns those whose
// top-k did not finish in round 0.
func (e *qengine) wave(jobs []*qjob) ([]*qjob, error) {
	w := int64(len(jobs))
	t := e.waveTable(jobs)
	rows, bs, accN := int64(len(t.sel)), int64(e.bs), e.accN()
	table := make([]uint32, 0, 2*len(t.sel)+2*len(t.segQ)+len(t.needs))
	var offs [5]int64
	for i, part := range [][]uint32{t.sel, t.rowSeg, t.segQ, t.segIdf, t.needs} {
		offs[i] = int64(len(table))
		table = append(table, part...)
	}
	layout := func(base devPtr) (tab, acc, hist, bnd, docs, freqs devPtr, size int64) {
		c := carve{base: base}
		tab = c.take(4 * int64(len(table)))
		acc = c.take(4 * w * accN)
		hist = c.take(4 * w << qHistBits)
		bnd = c.take(8 * w * qFinCap)
		docs, freqs = c.take(4*rows*bs), c.take(4*rows*bs)
		return tab, acc, hist, bnd, docs, freqs, c.off
	}
	_, _, _, _, _, _, size := layout(0)
	if err := e.grow(&e.scratch, &e.scrSize, size); err != nil {
		return nil, err
	}
	if err := e.grow(&e.out, &e.outSize, w*t.slotSize); err != nil {
		return nil, err
	}
	tab, acc, hist, bnd, docs, freqs, _ := layout(e.scratch)
	if err := e.be.upload(tab, bytesOf(table)); err != nil {
		return nil, err
	}
	at := func(part int) uint64 { return uint64(tab) + 4*uint64(offs[part]) }
	sel, rowSeg, segQ, segIdf, needs := at(0), at(1), at(2), at(3), at(4)
	total := int(w * t.slotSize)
	if cap(e.slotBuf) < total {
		e.slotBuf = make([]byte, total)
	}
	buf := e.slotBuf[:total]
	out, slot := uint64(e.out), uint64(t.slotSize)
	err := e.be.run(func(s stream) error {
		steps := []func() error{
			func() error { return s.launch("q_init", int(w), qTile, out, slot, sSteps, needs, 0, none32, 0) },
			func() error { return s.memset32(hist, 0, w<<qHistBits) },
			func() error { return s.memset32(acc, 0, w*accN) },
			func() error { return e.decode(s, &e.docCol, true, 0, devPtr(sel), rows, docs) },
			func() error { return e.decode(s, &e.freqCol, false, 0, devPtr(sel), rows, freqs) },
		}
		for _, r := range t.posRows {
			steps = append(steps, func() error {
				return s.launch("or_score_rows", e.gridFor((r[1]-r[0])*bs), qTile, uint64(docs), uint64(freqs), sel,
					uint64(e.docCol.counts), rowSeg, segQ, segIdf, uint64(r[0]), uint64(r[1]), uint64(bs), uint64(e.k1p1),
					uint64(e.norms), uint64(acc), uint64(accN))
			})
		}
		steps = append(steps,
			func() error {
				return e.denseTopK(s, denseRound{w: int(w), acc: acc, accN: accN, hist: hist, out: e.out, slot: t.slotSize,
					hdr: t.hdr, resultCap: t.resultCap, bnd: bnd, bndCap: qFinCap})
			},
			func() error { return s.download(buf, e.out) },
		)
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
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
