package index_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/index"
)

// clusteredList draws n sorted docids below nDocs in a few dense runs,
// where a shorter list is locally the denser one.
func clusteredList(r *rand.Rand, term string, n, nDocs int) list {
	seen := map[uint32]bool{}
	var docs []uint32
	for len(docs) < n {
		start, run := r.IntN(nDocs), 1+r.IntN(300)
		for d := start; d < min(start+run, nDocs) && len(docs) < n; d++ {
			if !seen[uint32(d)] && r.IntN(4) > 0 {
				seen[uint32(d)] = true
				docs = append(docs, uint32(d))
			}
		}
	}
	slices.Sort(docs)
	freqs := make([]uint32, n)
	for i := range freqs {
		freqs[i] = 1
	}
	return list{term, docs, freqs}
}

// TestMeet walks every pair of lists with Meet, as the AND loop does
// (the shorter list's cursor moved, the other lazy), now and then moving
// the first far ahead itself, and checks each docid Meet reports both
// lists holding against the sorted intersection, and that none is missed:
// with the AVX2 stepper (where the CPU has it) and with the scalar loop
// alone.
func TestMeet(t *testing.T) {
	for _, windows := range []bool{true, false} {
		t.Run(fmt.Sprint("windows=", windows), func(t *testing.T) {
			defer index.SetMeetWindows(index.SetMeetWindows(windows))
			testMeet(t)
		})
	}
}

func testMeet(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	c := randomCollection(r, cursorDocs, cursorLengths)
	for i, n := range []int{60, 700, 3000} {
		c.lists = append(c.lists, clusteredList(r, fmt.Sprintf("zz%d", i), n, cursorDocs))
	}
	for _, codec := range testCodecs() {
		dir := t.TempDir()
		c.write(t, dir, codec)
		ix := openIndex(t, dir)
		for ai, la := range c.lists {
			for bi, lb := range c.lists {
				if ai == bi {
					continue
				}
				in := map[uint32]bool{}
				for _, d := range lb.docs {
					in[d] = true
				}
				var want []uint32
				for _, d := range la.docs {
					if in[d] {
						want = append(want, d)
					}
				}
				for trial := range 3 {
					a, b := ix.Cursor(ix.Term(ai)), ix.LazyCursor(ix.Term(bi))
					var got, wantNow []uint32
					w := 0 // want[w:] lie at or after a's docid
					for d := a.DocID(); d != index.NoMoreDocs; {
						if trial > 0 && r.IntN(50) == 0 {
							// Jump ahead, as a pruned candidate does.
							d = a.NextGEQ(d + uint32(r.IntN(400)))
							for w < len(want) && want[w] < d {
								w++
							}
							continue
						}
						x, ok := index.Meet(a, b)
						if x < d || x != a.DocID() {
							t.Fatalf("%s %s&%s: Meet from %d returned %d, a stands on %d", codec, la.term, lb.term, d, x, a.DocID())
						}
						if d = x; !ok {
							continue
						}
						if b.DocID() != x {
							t.Fatalf("%s %s&%s: Meet reports %d in both, b stands on %d", codec, la.term, lb.term, x, b.DocID())
						}
						got = append(got, x)
						if w < len(want) && want[w] == x {
							wantNow = append(wantNow, x)
							w++
						}
						d = a.Next()
					}
					for ; w < len(want); w++ {
						wantNow = append(wantNow, want[w])
					}
					if trial == 0 && !slices.Equal(got, want) {
						t.Fatalf("%s %s&%s: Meet found %d docids, want %d (first %v / %v)", codec, la.term, lb.term, len(got), len(want), head(got), head(want))
					}
					if !slices.Equal(got, wantNow) {
						t.Fatalf("%s %s&%s trial %d: Meet found %v, want %v", codec, la.term, lb.term, trial, head(got), head(wantNow))
					}
				}
			}
		}
	}
}

func head(d []uint32) []uint32 { return d[:min(len(d), 8)] }
