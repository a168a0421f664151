package testindex

import (
	"testing"

	_ "github.com/gpusearch/gpusearch/codecplugins/varint"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// TestWrite: the index holds the documents and posting lists written.
func TestWrite(t *testing.T) {
	ix := Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, []uint32{3, 2}, []string{"a", "b"},
		Postings{Term: "cat", DocIDs: []uint32{0, 1}, Freqs: []uint32{2, 1}},
		Postings{Term: "dog", DocIDs: []uint32{0}, Freqs: []uint32{1}})
	cat, _ := ix.DocFreq("cat")
	if ix.NumDocs() != 2 || ix.NumTerms() != 2 || cat != 2 || ix.URL(1) != "b" {
		t.Errorf("%d documents, %d terms, cat in %d, document 1 %q; want 2, 2, 2, b", ix.NumDocs(), ix.NumTerms(), cat, ix.URL(1))
	}
}

// TestCrawl: the sample crawl is found from this package's directory and
// indexed with the options given.
func TestCrawl(t *testing.T) {
	ix := Crawl(t, indexer.Options{Workers: 2, DocIDCodec: "varint-SU", FreqCodec: "varint-SU"})
	if ix.NumDocs() < 100 || ix.NumTerms() == 0 {
		t.Errorf("%d documents, %d terms; want the sample crawl's", ix.NumDocs(), ix.NumTerms())
	}
}
