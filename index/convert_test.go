package index_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// TestConvertKeepsAnswers re-encodes the sample crawl's index, with its
// positions, with every registered codec and checks that every sample
// query, phrases included, answers the same.
func TestConvertKeepsAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the sample crawl")
	}
	src := t.TempDir()
	if _, err := indexer.Build(context.Background(), "../examples/crawl", src, indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Positions: true}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	queries := []string{"parse json", "http server timeout", "read file line by line", "sort slice", "mutex lock", "base64 encode string", "the",
		`"http server"`, `"read the file" line`, `"the value of"`}
	answers := func(ix *index.Index) [][]query.Hit {
		e, err := query.New(ix, "exhaustive")
		if err != nil {
			t.Fatal(err)
		}
		var out [][]query.Hit
		for _, text := range queries {
			for _, m := range []query.Mode{query.And, query.Or} {
				q, err := query.Parse(analysis.New(), text, m, 20)
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, res.Hits)
			}
		}
		return out
	}
	want := answers(ix)
	for _, codec := range codecplugins.Names() {
		t.Run(codec, func(t *testing.T) {
			dst := t.TempDir()
			if err := index.Convert(context.Background(), ix, dst, index.WriterOptions{DocIDCodec: codec, FreqCodec: codec}); err != nil {
				t.Fatal(err)
			}
			cx, err := index.Open(dst)
			if err != nil {
				t.Fatal(err)
			}
			defer cx.Close()
			if m := cx.Meta(); m.DocIDCodec != codec || m.Postings != ix.Meta().Postings || m.Terms != ix.Meta().Terms || cx.PositionsCodec().Name() != codec {
				t.Fatalf("converted meta %+v", m)
			}
			if got := answers(cx); !reflect.DeepEqual(got, want) {
				t.Errorf("answers changed after converting to %s", codec)
			}
			so, srcs, ok := ix.Sources()
			if cso, csrcs, cok := cx.Sources(); !ok || !cok || cso != so || !reflect.DeepEqual(csrcs, srcs) {
				t.Errorf("sources after converting: %v %v, want %v %v", cok, cso, ok, so)
			}
		})
	}
}

// TestConvertKeepsTitleWeight checks that a conversion records the title
// weight its input's frequencies fold in.
func TestConvertKeepsTitleWeight(t *testing.T) {
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: "url", TitleWeight: 3},
		[]uint32{4, 7}, []string{"a", "b"}, testindex.Postings{Term: "t", DocIDs: []uint32{0, 1}, Freqs: []uint32{4, 1}})
	dst := filepath.Join(t.TempDir(), "out")
	if err := index.Convert(context.Background(), ix, dst, index.WriterOptions{DocIDCodec: "bp128", FreqCodec: "bp128"}); err != nil {
		t.Fatal(err)
	}
	if m, err := index.ReadMeta(dst); err != nil || m.TitleWeight != 3 {
		t.Errorf("converted index: title weight %d, %v; want 3", m.TitleWeight, err)
	}
}
