package query_test

import (
	"context"
	"fmt"
	"log"
	"os"

	_ "github.com/gpusearch/gpusearch/codecplugins/all"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// ExampleOpen lists the registered engines, then opens one by name over a
// three-document index and answers an OR query with it.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "query-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"},
		[]uint32{4, 6, 5}, []string{"a.html", "b.html", "c.html"})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.AddTerm("gpu", []uint32{0, 2}, []uint32{1, 3}); err != nil { // docids, frequencies
		log.Fatal(err)
	}
	if err := w.AddTerm("search", []uint32{1, 2}, []uint32{2, 1}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	fmt.Println(query.Engines())
	e, err := query.Open(ix, "bitmap", query.Options{CacheBytes: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	res, err := e.Search(context.Background(), query.Query{Terms: []string{"gpu", "search"}, Mode: query.Or, K: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println(ix.URL(h.DocID))
	}
	_, err = query.New(ix, "quantum")
	fmt.Println(err)
	// Output:
	// [bitmap bitmap-nocache bmw cpu daat exhaustive maxscore wand]
	// c.html
	// b.html
	// query: unknown engine "quantum" (known: bitmap, bitmap-nocache, bmw, cpu, daat, exhaustive, maxscore, wand)
}
