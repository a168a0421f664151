package query

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
)

// TestRegistry opens every registered engine by name and checks what it
// needs, which algorithm answers, and whether it keeps a cache: a cached
// engine decodes fewer blocks the second time it answers a query.
func TestRegistry(t *testing.T) {
	ix := skipCorpus(t, 1000)
	tests := []struct {
		name   string
		needs  Needs
		algo   string // Stats.Algorithm of an OR query
		cached bool
	}{
		{"bitmap", Needs{Cache: true}, "bitmap", true},
		{"bitmap-nocache", Needs{}, "bitmap", false},
		{"bmw", Needs{}, "bmw", false},
		{"cpu", Needs{}, "maxscore", false},
		{"daat", Needs{}, "or", false},
		{"exhaustive", Needs{}, "exhaustive", false},
		{"maxscore", Needs{}, "maxscore", false},
		{"wand", Needs{}, "wand", false},
	}
	var names []string
	for _, tt := range tests {
		names = append(names, tt.name)
		t.Run(tt.name, func(t *testing.T) {
			d, err := Lookup(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if d.Needs != tt.needs {
				t.Errorf("Needs = %+v, want %+v", d.Needs, tt.needs)
			}
			e, err := New(ix, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			q := Query{Terms: []string{"common", "rare"}, Mode: Or, K: 10}
			var decoded [2]int64
			for i := range decoded {
				res, err := e.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Hits) != 10 || res.Stats.Algorithm != tt.algo {
					t.Fatalf("Search = %d hits by %q, want 10 by %q", len(res.Hits), res.Stats.Algorithm, tt.algo)
				}
				decoded[i] = res.Stats.BlocksDecoded
			}
			if cached := decoded[1] < decoded[0]; cached != tt.cached {
				t.Errorf("blocks decoded %v on the same query twice: cached %v, want %v", decoded, cached, tt.cached)
			}
		})
	}
	if got := Engines(); !slices.Equal(got, names) {
		t.Errorf("Engines() = %v, want %v", got, names)
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"nosuch", "", "auto", "Bitmap"} {
		_, err := Lookup(name)
		if err == nil || !strings.Contains(err.Error(), "unknown engine") || !strings.Contains(err.Error(), "bitmap-nocache") {
			t.Errorf("Lookup(%q) error = %v, want unknown engine listing the known ones", name, err)
		}
	}
}

func TestRegisterRefuses(t *testing.T) {
	open := func(*index.Index, Options) (Engine, error) { return nil, errors.New("unused") }
	for _, tt := range []struct {
		name string
		d    Driver
	}{
		{"cpu", Driver{Open: open}},                  // taken
		{"", Driver{Open: open}},                     // no name
		{"no-open", Driver{Needs: Needs{GPU: true}}}, // no Open
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %+v) did not panic", tt.name, tt.d.Needs)
				}
			}()
			Register(tt.name, tt.d)
		}()
	}
}
