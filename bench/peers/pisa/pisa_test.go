package pisa

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/bench/peers/peer"
)

func TestNewNotInstalled(t *testing.T) {
	partial := t.TempDir()
	if err := os.WriteFile(filepath.Join(partial, "queries"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{"", filepath.Join(t.TempDir(), "absent"), partial} {
		if _, err := New(DefaultOptions(bin)); !errors.Is(err, peer.ErrNotInstalled) {
			t.Errorf("New(bin %q) = %v, want an error wrapping peer.ErrNotInstalled", bin, err)
		}
	}
}

// fakeTools writes an executable for each of tools into a new directory.
func fakeTools(t *testing.T, tools []string) string {
	dir := t.TempDir()
	for _, name := range tools {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestNewIDF1(t *testing.T) {
	stock, scoring := fakeTools(t, Tools), fakeTools(t, ScoringTools)
	tests := []struct {
		name      string
		encodings []string
		idf1Bin   string
		want      []string // engine names; nil: ErrNotInstalled
	}{
		{"both", []string{"block_simdbp", "block_optpfor"}, scoring, []string{"pisa", "pisa-optpfor", "pisa-idf1"}},
		{"idf1 alone", nil, scoring, []string{"pisa-idf1"}},
		{"no idf1 directory", nil, "", nil},
		{"idf1 directory without the scoring tools", nil, fakeTools(t, []string{"queries"}), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions(stock)
			o.Encodings, o.IDF1Bin, o.IDF1Encodings = tc.encodings, tc.idf1Bin, []string{"block_simdbp"}
			es, err := New(o)
			if tc.want == nil {
				if !errors.Is(err, peer.ErrNotInstalled) {
					t.Fatalf("New = %v, want an error wrapping peer.ErrNotInstalled", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Name())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("engines %v, want %v", got, tc.want)
			}
			last := es[len(es)-1]
			if bin := filepath.Dir(last.command(t.Context(), "queries").Path); bin != tc.idf1Bin {
				t.Errorf("idf1 queries runs from %s, want %s", bin, tc.idf1Bin)
			}
			if bin := filepath.Dir(last.command(t.Context(), "invert").Path); bin != stock {
				t.Errorf("idf1 invert runs from %s, want the stock %s", bin, stock)
			}
		})
	}
}

func TestEngineName(t *testing.T) {
	for enc, want := range map[string]string{"block_simdbp": "pisa", "block_optpfor": "pisa-optpfor", "ef": "pisa-ef"} {
		if got := EngineName(enc); got != want {
			t.Errorf("EngineName(%q) = %q, want %q", enc, got, want)
		}
	}
}

func TestFastestPass(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name      string
		in        []time.Duration
		n, repeat int
		want      []time.Duration
	}{
		{"one pass", []time.Duration{5 * us, 7 * us}, 2, 1, []time.Duration{5 * us, 7 * us}},
		{"three passes", []time.Duration{5 * us, 7 * us, 9 * us, 3 * us, 4 * us, 8 * us}, 2, 3,
			[]time.Duration{4 * us, 3 * us, 4 * us, 3 * us, 4 * us, 3 * us}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fastestPass(tc.in, tc.n, tc.repeat); !slices.Equal(got, tc.want) {
				t.Errorf("fastestPass = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestQueryFile(t *testing.T) {
	got := string(queryFile([]string{"tcp: the protocol", "", "a:b:c"}))
	want := "0:tcp  the protocol\n1:\n2:a b c\n"
	if got != want {
		t.Errorf("queryFile = %q, want %q", got, want)
	}
}

func TestParseTimes(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name         string
		in           string
		n, drop, rep int
		want         []time.Duration
		err          string
	}{
		{"one pass", "maxscore\t0\t1\t5\nmaxscore\t1\t1\t7\n", 2, 0, 1, []time.Duration{5 * us, 7 * us}, ""},
		{"header", "algorithm\tqid\trun\tusec\nmaxscore\t0\t1\t5\n", 1, 0, 1, []time.Duration{5 * us}, ""},
		{"passes dropped and kept in pass order", "a\t0\t1\t9\na\t0\t2\t1\na\t0\t3\t2\na\t1\t1\t9\na\t1\t2\t3\na\t1\t3\t4\n", 2, 1, 2,
			[]time.Duration{1 * us, 3 * us, 2 * us, 4 * us}, ""},
		{"missing query", "a\t0\t1\t5\n", 2, 0, 1, nil, "no time for query 1"},
		{"query twice", "a\t0\t1\t5\na\t0\t1\t6\n", 1, 0, 1, nil, "twice"},
		{"query out of range", "a\t2\t1\t5\n", 2, 0, 1, nil, "bad"},
		{"not a number", "a\t0\t1\tfast\n", 1, 0, 1, nil, "bad"},
		{"three fields", "a\t0\t5\n", 1, 0, 1, nil, "3 fields"},
		{"run 0", "a\t0\t0\t5\n", 1, 0, 1, nil, "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTimes(strings.NewReader(tt.in), tt.n, tt.drop, tt.rep)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseTimes = %v, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("parseTimes = %v, %v; want %v", got, err, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("parseTimes = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestParseRun(t *testing.T) {
	byName := map[string]int{"00000000.txt": 0, "00000001.txt": 1, "00000002.txt": 2}
	tests := []struct {
		name string
		in   string
		n    int
		want [][]peer.Hit
		err  string
	}{
		{"hits in rank order, a query without", "0 Q0 00000002.txt 1 3.5 pisa\n0 Q0 00000000.txt 2 1.25 pisa\n2 Q0 00000001.txt 1 0.5 pisa\n", 3,
			[][]peer.Hit{{{Doc: 2, Score: 3.5}, {Doc: 0, Score: 1.25}}, nil, {{Doc: 1, Score: 0.5}}}, ""},
		{"empty", "", 2, [][]peer.Hit{nil, nil}, ""},
		{"unknown document", "0 Q0 nope.txt 1 3.5 pisa\n", 1, nil, "bad"},
		{"rank gap", "0 Q0 00000000.txt 2 3.5 pisa\n", 1, nil, "rank 2"},
		{"query out of range", "1 Q0 00000000.txt 1 3.5 pisa\n", 1, nil, "bad"},
		{"short line", "0 Q0 00000000.txt 1 3.5\n", 1, nil, "5 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRun(strings.NewReader(tt.in), tt.n, byName)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseRun = %v, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("parseRun = %v, %v; want %v", got, err, tt.want)
			}
			for q := range got {
				if len(got[q]) != len(tt.want[q]) {
					t.Fatalf("query %d: %v, want %v", q, got[q], tt.want[q])
				}
				for i := range got[q] {
					if got[q][i] != tt.want[q][i] {
						t.Fatalf("query %d: %v, want %v", q, got[q], tt.want[q])
					}
				}
			}
		})
	}
}
