package index_test

import (
	"fmt"
	"log"
	"os"

	_ "github.com/gpusearch/gpusearch/codecplugins/all" // registers the codecs an index names
	"github.com/gpusearch/gpusearch/index"
)

// ExampleOpen writes a two-document index with a Writer, opens it and reads
// its counts and a term's document frequency back.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "index-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Document 0 is "cat dog cat", document 1 is "cat fish".
	opts := index.WriterOptions{DocIDCodec: "newpfor", FreqCodec: "newpfor", Order: "crawl"}
	w, err := index.NewWriter(dir, opts, []uint32{3, 2}, []string{"https://example.com/a", "https://example.com/b"})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []struct {
		term          string
		docids, freqs []uint32
	}{
		{"cat", []uint32{0, 1}, []uint32{2, 1}},
		{"dog", []uint32{0}, []uint32{1}},
		{"fish", []uint32{1}, []uint32{1}},
	} {
		if err := w.AddTerm(p.term, p.docids, p.freqs); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	ix, err := index.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	df, _ := ix.DocFreq("cat")
	fmt.Printf("%d documents, %d terms; cat is in %d, document 1 is %s\n", ix.NumDocs(), ix.NumTerms(), df, ix.URL(1))
	// Output: 2 documents, 3 terms; cat is in 2, document 1 is https://example.com/b
}
