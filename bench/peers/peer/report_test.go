package peer

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

func hits(docs ...int) []Hit {
	h := make([]Hit, len(docs))
	for i, d := range docs {
		h[i] = Hit{Doc: d, Score: float64(len(docs) - i)}
	}
	return h
}

// TestFastestPasses: each query's fastest time over the passes, in query
// order.
func TestFastestPasses(t *testing.T) {
	tests := []struct {
		name  string
		times []time.Duration
		n     int
		want  []time.Duration
	}{
		{"one pass", []time.Duration{3, 1, 2}, 3, []time.Duration{3, 1, 2}},
		{"three passes", []time.Duration{5, 1, 9, 4, 2, 7, 6, 3, 8}, 3, []time.Duration{4, 1, 7}},
		{"one query", []time.Duration{4, 2, 3}, 1, []time.Duration{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fastestPasses(tt.times, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("fastestPasses(%v, %d) = %v, want %v", tt.times, tt.n, got, tt.want)
			}
		})
	}
	r := summarize(Run{CPU: []time.Duration{3000, 1000, 2000, 5000}, Wall: []time.Duration{3900, 1200, 2500, 4000}, Hits: make([][]Hit, 2)}, 2)
	if r.BestCPUMeanUS != 1.5 || r.CPUMeanUS != 2.75 {
		t.Errorf("summarize: best CPU mean %v, CPU mean %v; want 1.5, 2.75", r.BestCPUMeanUS, r.CPUMeanUS)
	}
	// Fastest wall passes 2.5 and 1.2 us, truncated as PISA does: 2 and 1.
	if r.BestWallMeanUS != 1.5 {
		t.Errorf("summarize: best wall mean %v, want 1.5", r.BestWallMeanUS)
	}
	// Round 1 (3.9, 1.2 us), round 2 (2.5, 4.0 us), untruncated.
	if want := []float64{2.55, 3.25}; !slices.Equal(r.RoundBestWallMeanUS, want) {
		t.Errorf("summarize: round means %v, want %v", r.RoundBestWallMeanUS, want)
	}
}

// TestRoundMeans: each round's mean of its queries' fastest passes, and
// nothing where the passes do not split into the rounds.
func TestRoundMeans(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name     string
		times    []time.Duration
		n, round int
		want     []float64
	}{
		{"one round", []time.Duration{4 * us, 2 * us, 3 * us, 1 * us}, 2, 1, []float64{2}},
		{"two rounds", []time.Duration{4 * us, 2 * us, 3 * us, 1 * us}, 2, 2, []float64{3, 2}},
		{"uneven", []time.Duration{4 * us, 2 * us, 3 * us}, 1, 2, nil},
		{"no queries", nil, 0, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roundMeans(tt.times, tt.n, tt.round); !slices.Equal(got, tt.want) {
				t.Errorf("roundMeans = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAppendRound: a round's passes follow the rounds' before, its hits
// replace theirs, and a new algorithm is named after the old.
func TestAppendRound(t *testing.T) {
	spec := Spec{Mode: "or", K: 10}
	first := []Run{{Spec: spec, Wall: []time.Duration{1, 2}, CPU: []time.Duration{3, 4}, Hits: [][]Hit{hits(1)}, Algorithm: "maxscore"}}
	tests := []struct {
		name  string
		round Run
		want  Run
	}{
		{"same algorithm", Run{Spec: spec, Wall: []time.Duration{5}, CPU: []time.Duration{6}, Hits: [][]Hit{hits(2)}, Algorithm: "maxscore"},
			Run{Spec: spec, Wall: []time.Duration{1, 2, 5}, CPU: []time.Duration{3, 4, 6}, Hits: [][]Hit{hits(2)}, Algorithm: "maxscore"}},
		{"another algorithm", Run{Spec: spec, Wall: []time.Duration{5}, CPU: []time.Duration{6}, Hits: [][]Hit{hits(2)}, Algorithm: "block_max_wand"},
			Run{Spec: spec, Wall: []time.Duration{1, 2, 5}, CPU: []time.Duration{3, 4, 6}, Hits: [][]Hit{hits(2)}, Algorithm: "maxscore/block_max_wand"}},
		{"in process", Run{Spec: spec, Wall: []time.Duration{5}, CPU: []time.Duration{6}, Hits: [][]Hit{hits(2)}},
			Run{Spec: spec, Wall: []time.Duration{1, 2, 5}, CPU: []time.Duration{3, 4, 6}, Hits: [][]Hit{hits(2)}, Algorithm: "maxscore"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := []Run{first[0]}
			before[0].Wall, before[0].CPU = slices.Clone(first[0].Wall), slices.Clone(first[0].CPU)
			if got := appendRound(before, []Run{tt.round}); !reflect.DeepEqual(got, []Run{tt.want}) {
				t.Errorf("appendRound = %+v, want %+v", got, []Run{tt.want})
			}
		})
	}
	if got := appendRound(nil, first); !reflect.DeepEqual(got, first) {
		t.Errorf("appendRound(nil, r) = %+v, want r", got)
	}
}

func TestOverlap10(t *testing.T) {
	tests := []struct {
		name     string
		got, ref [][]Hit
		want     float64
		wantN    int
	}{
		{"same", [][]Hit{hits(1, 2, 3)}, [][]Hit{hits(1, 2, 3)}, 1, 1},
		{"order ignored", [][]Hit{hits(3, 1, 2)}, [][]Hit{hits(1, 2, 3)}, 1, 1},
		{"half", [][]Hit{hits(1, 9)}, [][]Hit{hits(1, 2)}, 0.5, 1},
		{"engine empty", [][]Hit{nil}, [][]Hit{hits(1, 2)}, 0, 1},
		{"reference empty skipped", [][]Hit{hits(5), hits(1)}, [][]Hit{nil, hits(1)}, 1, 1},
		{"all references empty", [][]Hit{hits(5)}, [][]Hit{nil}, 0, 0},
		{"only the first ten count",
			[][]Hit{hits(11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 1)},
			[][]Hit{hits(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)}, 0, 1},
		{"mean over queries", [][]Hit{hits(1), hits(9)}, [][]Hit{hits(1), hits(2)}, 0.5, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := overlap10(tt.got, tt.ref)
			if math.Abs(got-tt.want) > 1e-12 || n != tt.wantN {
				t.Errorf("overlap10(%v, %v) = %v, %d; want %v, %d", tt.got, tt.ref, got, n, tt.want, tt.wantN)
			}
		})
	}
}

func TestReadHits(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		n, docs int
		want    [][]Hit
		wantErr bool
	}{
		{"two queries", "3 1.5 0 0.25\n\n", 2, 4, [][]Hit{{{3, 1.5}, {0, 0.25}}, {}}, false},
		{"too few lines", "3 1.5\n", 2, 4, nil, true},
		{"too many lines", "\n\n\n", 2, 4, nil, true},
		{"odd fields", "3 1.5 2\n", 1, 4, nil, true},
		{"id out of range", "4 1.5\n", 1, 4, nil, true},
		{"negative id", "-1 1.5\n", 1, 4, nil, true},
		{"bad score", "1 x\n", 1, 4, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "and-10.hits")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readHits(path, tt.n, tt.docs)
			if (err != nil) != tt.wantErr {
				t.Fatalf("readHits(%q) error = %v, want error %v", tt.data, err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("readHits(%q) = %v, want %v", tt.data, got, tt.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	if got := string(oneLine([]byte("a\tb\r\nc d"))); got != "a b  c d" {
		t.Errorf("oneLine(%q) = %q, want %q", "a\tb\r\nc d", got, "a b  c d")
	}
}

func TestThreadCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the thread CPU clock is read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := ThreadCPU()
	x := 0
	for i := range 10_000_000 {
		x += i % 7
	}
	if c1 := ThreadCPU(); c1 <= c0 && x >= 0 {
		t.Errorf("ThreadCPU() went from %v to %v across a busy loop, want it to grow", c0, c1)
	}
}
