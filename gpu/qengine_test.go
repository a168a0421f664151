package gpu

import "testing"

// TestSizeClass: a size class is the least power of two, at least 16, that
// holds the size, so sizes of one class share their scratch layout.
func TestSizeClass(t *testing.T) {
	tests := []struct{ n, want int64 }{
		{0, 16}, {1, 16}, {16, 16}, {17, 32}, {255, 256}, {256, 256}, {257, 512},
		{1 << 20, 1 << 20}, {1<<20 + 1, 1 << 21}, {5_000_000, 1 << 23},
	}
	for _, tt := range tests {
		if got := sizeClass(tt.n); got != tt.want {
			t.Errorf("sizeClass(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

// TestInitGrid: q_init gets a CTA per slot, and enough CTAs for about 16
// words zeroed and a row listed per thread, at most the engine's grid cap.
func TestInitGrid(t *testing.T) {
	e := &qengine{gridCap: 64}
	tests := []struct {
		w, zero, rows int64
		want          int
	}{
		{1, 0, 0, 1},
		{1, 16 * qTile, 0, 1},
		{1, 16*qTile + 1, 0, 2},
		{1, 0, 3 * qTile, 3},
		{100, 0, 0, 100},
		{1, 1 << 30, 0, 64},
		{1, 0, 1 << 30, 64},
	}
	for _, tt := range tests {
		if got := e.initGrid(tt.w, tt.zero, tt.rows); got != tt.want {
			t.Errorf("initGrid(%d, %d, %d) = %d, want %d", tt.w, tt.zero, tt.rows, got, tt.want)
		}
	}
}

// TestAloneLayoutByClass: two AND passes alone whose sizes fall in the
// same classes lay out the same scratch and take the same counts, so
// their graph runs unpatched; a pass of another class lays out more.
func TestAloneLayoutByClass(t *testing.T) {
	const bs = 256
	e := &qengine{bs: bs, docs: 1 << 20, gridCap: 64}
	job := func(n1, n2 int) *qjob {
		return &qjob{plan: qplan{and: true, k: 10,
			lists: []qlist{{first: 7, nb: (n1 + bs - 1) / bs, df: n1}, {first: 900, nb: (n2 + bs - 1) / bs, df: n2}},
			pos:   []qpos{{list: 1, idf: 1.5}, {list: 0, idf: 2.5}}}}
	}
	layout := func(j *qjob) (andScratch, int64, *andTable) {
		tb := e.andTable([]*qjob{j})
		sc, size := tb.layout(1<<20, bs)
		return sc, size, tb
	}
	a, sizeA, ta := layout(job(3000, 40000))
	b, sizeB, tb := layout(job(3500, 50000))
	if a != b || sizeA != sizeB {
		t.Errorf("same classes, different layouts:\n%+v (%d)\n%+v (%d)", a, sizeA, b, sizeB)
	}
	for _, c := range [][2]int64{{ta.rows, tb.rows}, {ta.tiles, tb.tiles}, {ta.selRows, tb.selRows},
		{ta.maxN1, tb.maxN1}, {int64(ta.resultCap), int64(tb.resultCap)}, {ta.slotSize, tb.slotSize}} {
		if c[0] != c[1] {
			t.Errorf("same classes, different counts: %d and %d", c[0], c[1])
		}
	}
	if _, sizeC, _ := layout(job(9000, 40000)); sizeC <= sizeA {
		t.Errorf("a larger class laid out %d bytes, not more than %d", sizeC, sizeA)
	}
}
